import type { Migration } from 'kysely';

/** Tables owned by the storage module. Names are prefixed "storage_" so modules never collide. */
export interface StorageTables {}

/** Migrations of the storage module, keyed "storage-NNNN-what"; portable across SQLite and PostgreSQL. */
export const storageMigrations: Record<string, Migration> = {};
