import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { NotifyAttemptRow, NotifyDeliveryRow } from './db.ts';
import type { DeliveryAttempt, DeliveryFilter, DeliveryRecord, DeliveryStatus } from './types.ts';

export type NewDelivery = Omit<NotifyDeliveryRow, 'sequence' | 'payload' | 'lease_owner' | 'lease_until'>;

function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Persistence of events and their delivery state (SQLite and PostgreSQL, one schema). */
export class NotifyStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Inserts the event with the next sequence number of its session. A concurrent writer (another process) that
   * took the same number makes the insert fail on the unique index; the number is then read again.
   */
  async insert(row: NewDelivery, payloadFor: (sequence: number) => string): Promise<number> {
    for (let tries = 0; ; tries++) {
      const max = await this.db
        .selectFrom('notify_deliveries')
        .select((eb) => eb.fn.max<number | null>('sequence').as('max'))
        .where('app_id', '=', row.app_id)
        .where('sid', '=', row.sid)
        .executeTakeFirst();
      const sequence = max?.max === null || max?.max === undefined ? 0 : Number(max.max) + 1;
      try {
        await this.db
          .insertInto('notify_deliveries')
          .values({ ...row, sequence, payload: payloadFor(sequence), lease_owner: null, lease_until: null })
          .execute();
        return sequence;
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        // A retry of an insert whose answer was lost (the connection broke after the commit): the row is there.
        const mine = await this.db.selectFrom('notify_deliveries').select('sequence').where('notice_id', '=', row.notice_id).executeTakeFirst();
        if (mine) return Number(mine.sequence);
        if (tries >= 20) throw e;
      }
    }
  }

  /** Sessions that still have something to send. */
  async pendingSessions(): Promise<{ appId: string; sid: string }[]> {
    const rows = await this.db
      .selectFrom('notify_deliveries')
      .select(['app_id', 'sid'])
      .where('status', '=', 'pending')
      .groupBy(['app_id', 'sid'])
      .execute();
    return rows.map((r) => ({ appId: r.app_id, sid: r.sid }));
  }

  /** The lowest-sequence pending event of a session: events go out in sequence order. */
  async nextPending(appId: string, sid: string): Promise<NotifyDeliveryRow | undefined> {
    return await this.db
      .selectFrom('notify_deliveries')
      .selectAll()
      .where('app_id', '=', appId)
      .where('sid', '=', sid)
      .where('status', '=', 'pending')
      .orderBy('sequence')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Takes the event for one attempt unless another process holds it or its state moved on since it was read;
   * `takeFrom`: the owner of a live lease that may be taken anyway (a sender known to be gone).
   */
  async claim(row: NotifyDeliveryRow, owner: string, nowMs: number, untilMs: number, takeFrom?: string): Promise<boolean> {
    const holders = takeFrom === undefined ? [owner] : [owner, takeFrom];
    const res = await this.db
      .updateTable('notify_deliveries')
      .set({ lease_owner: owner, lease_until: untilMs })
      .where('notice_id', '=', row.notice_id)
      .where('status', '=', 'pending')
      .where('attempts', '=', row.attempts)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowMs), eb('lease_owner', 'in', holders)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Gives an event back without counting an attempt (shutdown while sending). */
  async release(noticeId: string, owner: string): Promise<void> {
    await this.db
      .updateTable('notify_deliveries')
      .set({ lease_owner: null, lease_until: null })
      .where('notice_id', '=', noticeId)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Records one attempt and the resulting state in one transaction. */
  async recordAttempt(
    attempt: NotifyAttemptRow,
    next: { status: DeliveryStatus; nextAttemptMs: number | null; deliveredMs: number | null; lastError: string | null },
  ): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('notify_attempts').values(attempt).execute();
      await tx
        .updateTable('notify_deliveries')
        .set({
          attempts: attempt.attempt,
          status: next.status,
          next_attempt_ms: next.nextAttemptMs,
          delivered_ms: next.deliveredMs,
          last_error: next.lastError,
          lease_owner: null,
          lease_until: null,
        })
        .where('notice_id', '=', attempt.notice_id)
        .execute();
    });
  }

  /**
   * Records a delivered attempt, once: only while the event is still pending at the attempt before it, so writing it
   * again (an answer lost, or a record taken back from the journal after the event moved on) changes nothing.
   */
  async recordDelivered(attempt: NotifyAttemptRow, deliveredMs: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const res = await tx
        .updateTable('notify_deliveries')
        .set({ attempts: attempt.attempt, status: 'delivered', next_attempt_ms: null, delivered_ms: deliveredMs, last_error: null, lease_owner: null, lease_until: null })
        .where('notice_id', '=', attempt.notice_id)
        .where('status', '=', 'pending')
        .where('attempts', '=', attempt.attempt - 1)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 1) {
        await tx.insertInto('notify_attempts').values(attempt).onConflict((oc) => oc.columns(['notice_id', 'attempt']).doNothing()).execute();
      }
    });
  }

  /** Marks an event as not sendable without an attempt (e.g. its app's webhook was removed). */
  async settle(noticeId: string, status: DeliveryStatus, lastError: string): Promise<void> {
    await this.db
      .updateTable('notify_deliveries')
      .set({ status, last_error: lastError, next_attempt_ms: null, lease_owner: null, lease_until: null })
      .where('notice_id', '=', noticeId)
      .execute();
  }

  /** Removes delivered and skipped events created before the cutoff; failed and pending ones are always kept. */
  async prune(beforeMs: number): Promise<number> {
    return await this.db.transaction().execute(async (tx) => {
      const old = tx
        .selectFrom('notify_deliveries')
        .select('notice_id')
        .where('status', 'in', ['delivered', 'skipped'])
        .where('created_ms', '<', beforeMs);
      await tx.deleteFrom('notify_attempts').where('notice_id', 'in', old).execute();
      const res = await tx
        .deleteFrom('notify_deliveries')
        .where('status', 'in', ['delivered', 'skipped'])
        .where('created_ms', '<', beforeMs)
        .executeTakeFirst();
      return Number(res.numDeletedRows);
    });
  }

  async list(filter: DeliveryFilter): Promise<DeliveryRecord[]> {
    let q = this.db.selectFrom('notify_deliveries').selectAll();
    if (filter.appId !== undefined) q = q.where('app_id', '=', filter.appId);
    if (filter.sid !== undefined) q = q.where('sid', '=', filter.sid);
    const rows = await q.orderBy('app_id').orderBy('sid').orderBy('sequence').execute();
    const attempts = new Map<string, DeliveryAttempt[]>();
    for (let i = 0; i < rows.length; i += 500) {
      const ids = rows.slice(i, i + 500).map((r) => r.notice_id);
      const found = await this.db
        .selectFrom('notify_attempts')
        .selectAll()
        .where('notice_id', 'in', ids)
        .orderBy('notice_id')
        .orderBy('attempt')
        .execute();
      for (const a of found) {
        const list = attempts.get(a.notice_id) ?? [];
        list.push(
          Object.freeze({
            attempt: a.attempt,
            atMs: Number(a.at_ms),
            httpStatus: a.http_status,
            error: a.error,
            durationMs: a.duration_ms,
          }),
        );
        attempts.set(a.notice_id, list);
      }
    }
    return rows.map((r) =>
      Object.freeze({
        noticeId: r.notice_id,
        appId: r.app_id,
        sid: r.sid,
        cname: r.cname,
        uid: r.uid,
        sequence: r.sequence,
        eventType: r.event_type,
        serviceType: r.service_type,
        msgName: r.msg_name,
        payload: JSON.parse(r.payload) as Record<string, unknown>,
        status: r.status as DeliveryStatus,
        // Attempts are read after the rows; one recorded in between is left out so each record is consistent.
        attempts: Object.freeze((attempts.get(r.notice_id) ?? []).filter((a) => a.attempt <= r.attempts)),
        createdMs: Number(r.created_ms),
        nextAttemptMs: r.next_attempt_ms === null ? null : Number(r.next_attempt_ms),
        deliveredMs: r.delivered_ms === null ? null : Number(r.delivered_ms),
        lastError: r.last_error,
      }),
    );
  }
}
