import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import { TaskConflictError } from '../lifecycle/errors.ts';
import { hasSession, type Task } from '../lifecycle/task.ts';

export interface StoredEvent {
  readonly appId: string;
  readonly resourceId: string;
  readonly sid: string;
  readonly eventType: number;
  readonly serviceType: number;
  readonly details: Readonly<Record<string, unknown>>;
  readonly createdAt: number;
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
      })
      .execute();
  }

  /** Saves a new state of an existing task; throws TaskConflictError when another session holds cname+uid. */
  async save(task: Task, now: number): Promise<void> {
    try {
      await this.db
        .updateTable('recording_tasks')
        .set({
          sid: task.kind === 'issued' ? null : task.session.sid,
          kind: task.kind,
          active_key: activeKey(task),
          updated_at: now,
          data: JSON.stringify(task),
        })
        .where('resource_id', '=', task.resource.resourceId)
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new TaskConflictError();
      throw e;
    }
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

  /** Every task of an app that has (or had) a session, optionally of one channel (the sessions API). */
  async sessionsOf(appId: string, cname?: string): Promise<Task[]> {
    let q = this.db.selectFrom('recording_tasks').select('data').where('app_id', '=', appId).where('kind', '!=', 'issued');
    if (cname !== undefined) q = q.where('cname', '=', cname);
    return (await q.execute()).map((r) => JSON.parse(r.data) as Task);
  }

  /** The task of a session by its sid, whatever its state. */
  async bySid(sid: string): Promise<Task | undefined> {
    const row = await this.db.selectFrom('recording_tasks').select('data').where('sid', '=', sid).executeTakeFirst();
    return row ? (JSON.parse(row.data) as Task) : undefined;
  }

  async addEvent(e: StoredEvent): Promise<void> {
    await this.db
      .insertInto('recording_events')
      .values({
        id: randomUUID(),
        app_id: e.appId,
        resource_id: e.resourceId,
        sid: e.sid,
        event_type: e.eventType,
        service_type: e.serviceType,
        details: JSON.stringify(e.details),
        created_at: e.createdAt,
      })
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
