import type { Migration } from 'kysely';

/** Tables owned by the chat module. Names are prefixed "chat_" so modules never collide. */
export interface ChatTables {}

/** Migrations of the chat module, keyed "chat-NNNN-what"; portable across SQLite and PostgreSQL. */
export const chatMigrations: Record<string, Migration> = {};
