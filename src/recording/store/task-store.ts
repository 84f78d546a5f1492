import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { RecordingStatus } from '../dispatch/types.ts';
import { TaskConflictError } from '../lifecycle/errors.ts';
import { hasSession, type Task } from '../lifecycle/task.ts';

export interface StoredEvent {
  /** Chosen when the event is raised, so writing it again (an answer lost in an outage) does not list it twice. */
  readonly id: string;
  readonly appId: string;
  readonly resourceId: string;
  readonly sid: string;
  readonly eventType: number;
  readonly serviceType: number;
  readonly details: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
}

/** One row of a session's status history (docs/recording-api.md, "Sessions"). */
export interface StatusChange {
  /** Lifecycle state after the change. */
  readonly state: 'live' | 'stopping' | 'ended';
  /** serverResponse.status after the change. */
  readonly status: RecordingStatus;
  readonly at: number;
}

/** Filters of the sessions list; `before` continues a page (newest first). */
export interface SessionQuery {
  readonly appId: string;
  readonly cname?: string;
  readonly state?: 'live' | 'stopping' | 'ended';
  readonly mode?: string;
  /** Started at or after / before (ms). */
  readonly from?: number;
  readonly to?: number;
  /** Position after which the page starts: sessions started before it (ties broken by sid). */
  readonly before?: { readonly startedAt: number; readonly sid: string };
  readonly limit: number;
}

const sessionColumns = (t: Task) =>
  t.kind === 'issued' ? { mode: null, started_at: null } : { mode: t.session.mode, started_at: t.session.startedAt };

/** The state and status a task shows in its history, or undefined before a session exists. */
function statusOf(t: Task | undefined): StatusChange | undefined {
  if (!t || t.kind === 'issued') return undefined;
  return { state: t.kind, status: t.session.status, at: 0 };
}

const activeKey = (t: Task): string | null =>
  hasSession(t) ? `${t.resource.appId}/${t.resource.cname}/${t.resource.uid}` : null;

/** Unique-index violations look different per driver; both carry a recognisable message or code. */
function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/i.test(err.message ?? '');
}

/** Persistence of task info objects and control-plane events (SQLite or PostgreSQL through Kysely). */
export class TaskStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Sessions (started tasks) by mode and lifecycle state (live, stopping, ended), for /metrics. */
  async countSessions(): Promise<{ mode: string; state: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('recording_tasks')
      .select(['mode', 'kind', (eb) => eb.fn.countAll<number>().as('n')])
      .where('mode', 'is not', null)
      .groupBy(['mode', 'kind'])
      .execute();
    return rows.map((r) => ({ mode: r.mode!, state: r.kind, count: Number(r.n) }));
  }

  async insert(task: Task, now: number): Promise<void> {
    await this.db
      .insertInto('recording_tasks')
      .values({
        resource_id: task.resource.resourceId,
        app_id: task.resource.appId,
        cname: task.resource.cname,
        uid: task.resource.uid,
        sid: hasSession(task) || task.kind === 'ended' ? task.session.sid : null,
        kind: task.kind,
        active_key: activeKey(task),
        expires_at: task.resource.expiresAt,
        updated_at: now,
        data: JSON.stringify(task),
        ...sessionColumns(task),
      })
      .execute();
  }

  /** Saves a new state of an existing task; throws TaskConflictError when another session holds cname+uid. */
  async save(task: Task, now: number, before?: Task): Promise<void> {
    try {
      await this.db
        .updateTable('recording_tasks')
        .set({
          sid: task.kind === 'issued' ? null : task.session.sid,
          kind: task.kind,
          active_key: activeKey(task),
          updated_at: now,
          data: JSON.stringify(task),
          ...sessionColumns(task),
        })
        .where('resource_id', '=', task.resource.resourceId)
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new TaskConflictError();
      throw e;
    }
    const was = statusOf(before);
    const is = statusOf(task);
    if (is && task.kind !== 'issued' && (!was || was.state !== is.state || was.status !== is.status)) {
      await this.db
        .insertInto('recording_status_changes')
        .values({ id: randomUUID(), sid: task.session.sid, kind: is.state, status: is.status, at: now })
        .execute();
    }
  }

  /** Every state or status change of a session, oldest first. */
  async statusHistory(sid: string): Promise<StatusChange[]> {
    const rows = await this.db
      .selectFrom('recording_status_changes')
      .select(['kind', 'status', 'at'])
      .where('sid', '=', sid)
      .orderBy('at')
      .execute();
    return rows.map((r) => ({ state: r.kind as StatusChange['state'], status: Number(r.status) as RecordingStatus, at: Number(r.at) }));
  }

  /** Sessions of an app, newest first, at most `limit` (docs/recording-api.md, "Sessions"). */
  async listSessions(q: SessionQuery): Promise<Task[]> {
    let s = this.db
      .selectFrom('recording_tasks')
      .select('data')
      .where('app_id', '=', q.appId)
      .where('started_at', 'is not', null);
    if (q.cname !== undefined) s = s.where('cname', '=', q.cname);
    if (q.state !== undefined) s = s.where('kind', '=', q.state);
    if (q.mode !== undefined) s = s.where('mode', '=', q.mode);
    if (q.from !== undefined) s = s.where('started_at', '>=', q.from);
    if (q.to !== undefined) s = s.where('started_at', '<', q.to);
    const b = q.before;
    if (b) {
      s = s.where((eb) =>
        eb.or([eb('started_at', '<', b.startedAt), eb.and([eb('started_at', '=', b.startedAt), eb('sid', '<', b.sid)])]),
      );
    }
    const rows = await s.orderBy('started_at', 'desc').orderBy('sid', 'desc').limit(q.limit).execute();
    return rows.map((r) => JSON.parse(r.data) as Task);
  }

  /** The task holding a session id, whatever its state. */
  async bySid(appId: string, sid: string): Promise<Task | undefined> {
    const row = await this.db
      .selectFrom('recording_tasks')
      .select('data')
      .where('sid', '=', sid)
      .where('app_id', '=', appId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.data) as Task) : undefined;
  }

  async get(resourceId: string): Promise<Task | undefined> {
    const row = await this.db
      .selectFrom('recording_tasks')
      .select('data')
      .where('resource_id', '=', resourceId)
      .executeTakeFirst();
    return row ? (JSON.parse(row.data) as Task) : undefined;
  }

  /** Whether a live or stopping session exists for this app, cname and uid. */
  async hasActive(appId: string, cname: string, uid: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('recording_tasks')
      .select('resource_id')
      .where('active_key', '=', `${appId}/${cname}/${uid}`)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Sessions plus still-valid unstarted resources of an app (the concurrency limit counts both). */
  async countActive(appId: string, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('recording_tasks')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('app_id', '=', appId)
      .where((eb) =>
        eb.or([eb('kind', 'in', ['live', 'stopping']), eb.and([eb('kind', '=', 'issued'), eb('expires_at', '>', now)])]),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every task a recorder held when the process stopped (restart recovery). */
  async listWithSession(): Promise<Task[]> {
    const rows = await this.db
      .selectFrom('recording_tasks')
      .select('data')
      .where('kind', 'in', ['live', 'stopping'])
      .execute();
    return rows.map((r) => JSON.parse(r.data) as Task);
  }

  /** Stores events of the session history; one already stored (same ID) is left as it is. */
  async addEvents(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.db
      .insertInto('recording_events')
      .values(
        events.map((e) => ({
          id: e.id,
          app_id: e.appId,
          resource_id: e.resourceId,
          sid: e.sid,
          event_type: e.eventType,
          service_type: e.serviceType,
          details: JSON.stringify(e.details),
          created_at: e.createdAt,
        })),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async events(sid: string): Promise<StoredEvent[]> {
    const rows = await this.db
      .selectFrom('recording_events')
      .selectAll()
      .where('sid', '=', sid)
      .orderBy('created_at')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      appId: r.app_id,
      resourceId: r.resource_id,
      sid: r.sid,
      eventType: r.event_type,
      serviceType: r.service_type,
      details: JSON.parse(r.details) as Record<string, unknown>,
      createdAt: r.created_at,
    }));
  }
}
