import type { Kysely, Migration } from 'kysely';

/** One recording session's upload destination. `storage` is the sealed storageConfig (it holds secrets). */
export interface StorageSessionsTable {
  sid: string;
  app_id: string;
  cname: string;
  uid: string;
  storage: string;
  created_at: number;
  finished_at: number | null;
  /** Set when the session is finished and every file has arrived. */
  completed_at: number | null;
}

/** The spool manifest: one row per enqueued file, kept after upload (state `uploaded`) for the file list. */
export interface StorageFilesTable {
  id: string;
  sid: string;
  key: string;
  spool_path: string;
  content_type: string;
  bytes: number;
  /** `pending` (in the spool), `uploaded`, `superseded` (a newer copy of the same key replaced it), `lost`. */
  state: string;
  attempts: number;
  last_error: string | null;
  enqueued_at: number;
  uploaded_at: number | null;
  /** The spool holding the file (`<host>:<spoolDir>`): only a process there can upload it. */
  node: string | null;
  /** The process uploading it, and until when its claim holds (renewed while it lives). */
  owner: string | null;
  lease_until: number | null;
}

/** Tables owned by the storage module. Names are prefixed "storage_" so modules never collide. */
export interface StorageTables {
  storage_sessions: StorageSessionsTable;
  storage_files: StorageFilesTable;
}

/** Migrations of the storage module, keyed "storage-NNNN-what"; portable across SQLite and PostgreSQL. */
export const storageMigrations: Record<string, Migration> = {
  'storage-0001-spool': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('storage_sessions')
        .addColumn('sid', 'varchar(128)', (c) => c.primaryKey())
        .addColumn('app_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('cname', 'varchar(256)', (c) => c.notNull())
        .addColumn('uid', 'varchar(64)', (c) => c.notNull())
        .addColumn('storage', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .addColumn('completed_at', 'bigint')
        .execute();
      await db.schema
        .createTable('storage_files')
        .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('sid', 'varchar(128)', (c) => c.notNull())
        .addColumn('key', 'varchar(1024)', (c) => c.notNull())
        .addColumn('spool_path', 'text', (c) => c.notNull())
        .addColumn('content_type', 'varchar(128)', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('enqueued_at', 'bigint', (c) => c.notNull())
        .addColumn('uploaded_at', 'bigint')
        .execute();
      await db.schema.createIndex('storage_files_sid').on('storage_files').columns(['sid', 'state']).execute();
      await db.schema.createIndex('storage_files_state').on('storage_files').column('state').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('storage_files').execute();
      await db.schema.dropTable('storage_sessions').execute();
    },
  },
  // Several recorder processes on one PostgreSQL: each spooled file is uploaded by one live process of its node.
  'storage-0002-lease': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('storage_files').addColumn('node', 'varchar(512)').execute();
      await db.schema.alterTable('storage_files').addColumn('owner', 'varchar(64)').execute();
      await db.schema.alterTable('storage_files').addColumn('lease_until', 'bigint').execute();
      await db.schema.createIndex('storage_files_node').on('storage_files').columns(['node', 'state']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('storage_files_node').execute();
      await db.schema.alterTable('storage_files').dropColumn('lease_until').execute();
      await db.schema.alterTable('storage_files').dropColumn('owner').execute();
      await db.schema.alterTable('storage_files').dropColumn('node').execute();
    },
  },
  // The bucket route looks up who wrote an object (a customer reads only its own apps' objects).
  'storage-0003-files-key': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('storage_files_key').on('storage_files').column('key').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('storage_files_key').execute();
    },
  },
};
