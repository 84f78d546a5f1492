import type { Kysely, Migration } from 'kysely';

/** One ingress. `stream_key` is a secret (push kinds only); `state` is an IngressState. */
export interface IngressRow {
  ingress_id: string;
  app_id: string;
  cname: string;
  uid: string;
  kind: string;
  url: string | null;
  stream_key: string | null;
  state: string;
  error: string | null;
  created_ms: number;
  updated_ms: number;
  /** SRT: the UDP port of its listener (one ingress per port). */
  port: number | null;
  /** RTSP: `tcp` or `udp` (null: tcp). */
  transport: string | null;
  /** Sources reeltime connects to: the process that pulls it now, and until when its claim holds unless renewed. */
  holder: string | null;
  held_until_ms: number | null;
  /** WHEP: the bearer token of the source (a secret). */
  source_token: string | null;
  /** While `publishing`: until when the publishing process vouches for it unless it renews (a crashed one does not). */
  live_until_ms: number | null;
}

/** Tables owned by the ingress module, prefixed "ingress_" so modules never collide. */
export interface IngressTables {
  ingress_sources: IngressRow;
}

/** Migrations of the ingress module, keyed "ingress-NNNN-what"; portable across SQLite and PostgreSQL. */
export const ingressMigrations: Record<string, Migration> = {
  'ingress-0001-sources': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('ingress_sources')
        .addColumn('ingress_id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('cname', 'text', (c) => c.notNull())
        .addColumn('uid', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('stream_key', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        .execute();
      // One source per participant: two ingresses never publish as the same uid of a channel.
      await db.schema.createIndex('ingress_sources_participant').on('ingress_sources').columns(['app_id', 'cname', 'uid']).unique().execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('ingress_sources').execute();
    },
  },
  'ingress-0002-srt-port': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('ingress_sources').addColumn('port', 'integer').execute();
      // Rows without a port (every kind but SRT) are NULL, which a unique index lets repeat.
      await db.schema.createIndex('ingress_sources_port').on('ingress_sources').column('port').unique().execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('ingress_sources_port').execute();
      await db.schema.alterTable('ingress_sources').dropColumn('port').execute();
    },
  },
  'ingress-0003-pull': {
    async up(db: Kysely<unknown>) {
      // One statement per column: SQLite's ALTER TABLE adds one at a time.
      await db.schema.alterTable('ingress_sources').addColumn('transport', 'text').execute();
      await db.schema.alterTable('ingress_sources').addColumn('holder', 'text').execute();
      await db.schema.alterTable('ingress_sources').addColumn('held_until_ms', 'bigint').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const column of ['held_until_ms', 'holder', 'transport']) await db.schema.alterTable('ingress_sources').dropColumn(column).execute();
    },
  },
  'ingress-0004-source-token': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('ingress_sources').addColumn('source_token', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('ingress_sources').dropColumn('source_token').execute();
    },
  },
  'ingress-0005-live-until': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('ingress_sources').addColumn('live_until_ms', 'bigint').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('ingress_sources').dropColumn('live_until_ms').execute();
    },
  },
};
