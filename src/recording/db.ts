import type { Kysely, Migration } from 'kysely';

/** One row per resource ID; `data` holds the whole task info object (lifecycle/task.ts) as JSON text. */
export interface RecordingTaskRow {
  resource_id: string;
  app_id: string;
  cname: string;
  uid: string;
  sid: string | null;
  kind: string;
  /** `appId/cname/uid` while a session is live or stopping, null otherwise: a unique index forbids two at once. */
  active_key: string | null;
  /** Resource validity end (ms); counts issued-but-unstarted resources towards the concurrency limit. */
  expires_at: number;
  updated_at: number;
  data: string;
  /** Mode and start time (ms) of the session, null before start: the sessions list filters and orders on them. */
  mode: string | null;
  started_at: number | null;
}

/** One change of a session's lifecycle state or recording status, in the order they happened. */
export interface RecordingStatusChangeRow {
  id: string;
  sid: string;
  /** Lifecycle state after the change: live, stopping, ended. */
  kind: string;
  /** serverResponse.status after the change. */
  status: number;
  at: number;
}

/** Cloud-recording-service events the control plane emitted (the recorder's own go straight to notify). */
export interface RecordingEventRow {
  id: string;
  app_id: string;
  resource_id: string;
  sid: string;
  event_type: number;
  service_type: number;
  details: string;
  created_at: number;
}

/**
 * Which recorder holds a session, queue-backed dispatch only: `epoch` grows by one per take-over, and a recorder
 * writes only while its epoch is current and `expires_at` ahead (docs/deployment.md, "Failover and fencing").
 */
export interface RecordingLeaseRow {
  resource_id: string;
  sid: string;
  epoch: number;
  holder: string;
  expires_at: number;
}

/** Tables owned by the recording module. Names are prefixed "recording_" so modules never collide. */
export interface RecordingTables {
  recording_tasks: RecordingTaskRow;
  recording_events: RecordingEventRow;
  recording_status_changes: RecordingStatusChangeRow;
  recording_leases: RecordingLeaseRow;
}

/** Migrations of the recording module, keyed "recording-NNNN-what"; portable across SQLite and PostgreSQL. */
export const recordingMigrations: Record<string, Migration> = {
  'recording-0001-tasks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('recording_tasks')
        .addColumn('resource_id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('cname', 'text', (c) => c.notNull())
        .addColumn('uid', 'text', (c) => c.notNull())
        .addColumn('sid', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('active_key', 'text')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('recording_tasks_sid').on('recording_tasks').column('sid').unique().execute();
      await db.schema
        .createIndex('recording_tasks_active_key')
        .on('recording_tasks')
        .column('active_key')
        .unique()
        .execute();
      await db.schema.createIndex('recording_tasks_app_kind').on('recording_tasks').columns(['app_id', 'kind']).execute();
      await db.schema
        .createTable('recording_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'text', (c) => c.notNull())
        .addColumn('resource_id', 'text', (c) => c.notNull())
        .addColumn('sid', 'text', (c) => c.notNull())
        .addColumn('event_type', 'integer', (c) => c.notNull())
        .addColumn('service_type', 'integer', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('recording_events_sid').on('recording_events').column('sid').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('recording_events').execute();
      await db.schema.dropTable('recording_tasks').execute();
    },
  },
  // The concurrency count (TaskStore.countActive) on every acquire reads expires_at of each issued resource: with
  // it in the index the count reads the index alone instead of one table row per resource.
  'recording-0002-active-count-index': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('recording_tasks_app_kind_expiry')
        .on('recording_tasks')
        .columns(['app_id', 'kind', 'expires_at'])
        .execute();
      await db.schema.dropIndex('recording_tasks_app_kind').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.createIndex('recording_tasks_app_kind').on('recording_tasks').columns(['app_id', 'kind']).execute();
      await db.schema.dropIndex('recording_tasks_app_kind_expiry').execute();
    },
  },
  'recording-0003-leases': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('recording_leases')
        .addColumn('resource_id', 'text', (c) => c.primaryKey())
        .addColumn('sid', 'text', (c) => c.notNull())
        .addColumn('epoch', 'integer', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('recording_leases').execute();
    },
  },
  // The sessions API (docs/recording-api.md, "Sessions"): list by app newest first with filters, and the status
  // history of each session. Rows written before this migration get mode and start time from their task JSON.
  'recording-0004-sessions': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('recording_tasks').addColumn('mode', 'text').execute();
      await db.schema.alterTable('recording_tasks').addColumn('started_at', 'bigint').execute();
      const tasks = db as unknown as Kysely<RecordingTables>;
      const rows = await tasks.selectFrom('recording_tasks').select(['resource_id', 'data']).where('sid', 'is not', null).execute();
      for (const r of rows) {
        const session = (JSON.parse(r.data) as { session?: { mode?: string; startedAt?: number } }).session;
        if (!session) continue;
        await tasks
          .updateTable('recording_tasks')
          .set({ mode: session.mode ?? null, started_at: session.startedAt ?? null })
          .where('resource_id', '=', r.resource_id)
          .execute();
      }
      await db.schema
        .createIndex('recording_tasks_app_started')
        .on('recording_tasks')
        .columns(['app_id', 'started_at', 'sid'])
        .execute();
      await db.schema
        .createTable('recording_status_changes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('sid', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('recording_status_changes_sid').on('recording_status_changes').columns(['sid', 'at']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('recording_status_changes').execute();
      await db.schema.dropIndex('recording_tasks_app_started').execute();
      await db.schema.alterTable('recording_tasks').dropColumn('started_at').execute();
      await db.schema.alterTable('recording_tasks').dropColumn('mode').execute();
    },
  },
};
