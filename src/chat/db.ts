import { PostgresAdapter, type ColumnType, type Generated, type Kysely, type Migration } from 'kysely';

/** A registered chat user. Usernames are stored lower-case; the password is an scrypt hash, never returned. */
export interface ChatUserRow {
  uuid: string;
  org: string;
  app: string;
  username: string;
  password_hash: string | null;
  nickname: string | null;
  /** 1 or 0 (portable boolean). */
  activated: number;
  created: number;
  modified: number;
}

/** A text message kept until the recipient acknowledges it, so nothing is lost across a gateway restart. */
export interface ChatMessageRow {
  /** Insertion order, which is delivery order. */
  seq: Generated<number>;
  id: string;
  org: string;
  app: string;
  from_user: string;
  to_user: string;
  body: string;
  created: number;
  /** 0 until the recipient's client acknowledged it. */
  delivered: ColumnType<number, number | undefined, number>;
}

/** Tables owned by the chat module. Names are prefixed "chat_" so modules never collide. */
export interface ChatTables {
  chat_users: ChatUserRow;
  chat_messages: ChatMessageRow;
}

// Migrations run against Kysely<any>: the schema is what is being created.
// biome-ignore lint/suspicious/noExplicitAny: Kysely's migrations take Kysely<any>
type AnyDb = Kysely<any>;

/** Migrations of the chat module, keyed "chat-NNNN-what"; portable across SQLite and PostgreSQL. */
export const chatMigrations: Record<string, Migration> = {
  'chat-0001-users': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('chat_users')
        .addColumn('uuid', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('org', 'varchar(128)', (c) => c.notNull())
        .addColumn('app', 'varchar(128)', (c) => c.notNull())
        .addColumn('username', 'varchar(64)', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('nickname', 'text')
        .addColumn('activated', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('modified', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('chat_users_org_app_username', ['org', 'app', 'username'])
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('chat_users').execute();
    },
  },
  'chat-0002-messages': {
    async up(db: AnyDb) {
      // An auto-numbered key is spelled differently per dialect; everything else is shared.
      const pg = db.getExecutor().adapter instanceof PostgresAdapter;
      await db.schema
        .createTable('chat_messages')
        .addColumn('seq', pg ? 'bigserial' : 'integer', (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('id', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('org', 'varchar(128)', (c) => c.notNull())
        .addColumn('app', 'varchar(128)', (c) => c.notNull())
        .addColumn('from_user', 'varchar(64)', (c) => c.notNull())
        .addColumn('to_user', 'varchar(64)', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created', 'bigint', (c) => c.notNull())
        .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('chat_messages_pending')
        .on('chat_messages')
        .columns(['org', 'app', 'to_user', 'delivered', 'seq'])
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('chat_messages').execute();
    },
  },
};
