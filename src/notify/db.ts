import type { Migration } from 'kysely';

/** Tables owned by the notify module. Names are prefixed "notify_" so modules never collide. */
export interface NotifyTables {}

/** Migrations of the notify module, keyed "notify-NNNN-what"; portable across SQLite and PostgreSQL. */
export const notifyMigrations: Record<string, Migration> = {};
