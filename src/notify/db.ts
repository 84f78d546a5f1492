import type { Kysely, Migration } from 'kysely';

/** One event and the state of its delivery; `payload` is the JSON text sent in the envelope. */
export interface NotifyDeliveryRow {
  notice_id: string;
  app_id: string;
  sid: string;
  sequence: number;
  cname: string;
  uid: string;
  event_type: number;
  service_type: number;
  msg_name: string;
  payload: string;
  status: string;
  attempts: number;
  created_ms: number;
  next_attempt_ms: number | null;
  delivered_ms: number | null;
  last_error: string | null;
  /** Which process is sending it right now, until when (so two nodes resuming never send it twice at once). */
  lease_owner: string | null;
  lease_until: number | null;
}

/** One POST of an event. */
export interface NotifyAttemptRow {
  notice_id: string;
  attempt: number;
  at_ms: number;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

/** Tables owned by the notify module. Names are prefixed "notify_" so modules never collide. */
export interface NotifyTables {
  notify_deliveries: NotifyDeliveryRow;
  notify_attempts: NotifyAttemptRow;
}

/** Migrations of the notify module, keyed "notify-NNNN-what"; portable across SQLite and PostgreSQL. */
export const notifyMigrations: Record<string, Migration> = {
  'notify-0001-deliveries': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notify_deliveries')
        .addColumn('notice_id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('sid', 'text', (c) => c.notNull())
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('cname', 'text', (c) => c.notNull())
        .addColumn('uid', 'text', (c) => c.notNull())
        .addColumn('event_type', 'integer', (c) => c.notNull())
        .addColumn('service_type', 'integer', (c) => c.notNull())
        .addColumn('msg_name', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('next_attempt_ms', 'bigint')
        .addColumn('delivered_ms', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_until', 'bigint')
        .execute();
      // Sequence numbers are unique per session: a second process racing for the same number retries.
      await db.schema
        .createIndex('notify_deliveries_session_seq')
        .on('notify_deliveries')
        .columns(['app_id', 'sid', 'sequence'])
        .unique()
        .execute();
      await db.schema.createIndex('notify_deliveries_status').on('notify_deliveries').columns(['status', 'sid']).execute();
      await db.schema
        .createTable('notify_attempts')
        .addColumn('notice_id', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .addColumn('http_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('notify_attempts_pk', ['notice_id', 'attempt'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('notify_attempts').execute();
      await db.schema.dropTable('notify_deliveries').execute();
    },
  },
};
