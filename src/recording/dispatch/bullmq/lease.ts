import type { Kysely } from 'kysely';
import type { Database } from '../../../db/index.ts';

/** A recorder's hold on one session; `epoch` grows by one per take-over (docs/deployment.md, "Failover and fencing"). */
export interface Lease {
  readonly resourceId: string;
  readonly sid: string;
  readonly epoch: number;
  readonly holder: string;
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err.code === '23505' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint/i.test(err.message ?? '');
}

/** Lease rows in the database every process shares; each call is one statement, so no two holders ever win together. */
export class LeaseStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Takes the session when nobody holds a live lease on it; undefined while another holder's lease runs. */
  async acquire(resourceId: string, sid: string, holder: string, now: number, leaseMs: number): Promise<Lease | undefined> {
    try {
      await this.db
        .insertInto('recording_leases')
        .values({ resource_id: resourceId, sid, epoch: 1, holder, expires_at: now + leaseMs })
        .execute();
      return { resourceId, sid, epoch: 1, holder };
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    const row = await this.db
      .updateTable('recording_leases')
      .set((eb) => ({ epoch: eb('epoch', '+', 1), holder, sid, expires_at: now + leaseMs }))
      .where('resource_id', '=', resourceId)
      .where('expires_at', '<=', now)
      .returning('epoch')
      .executeTakeFirst();
    return row ? { resourceId, sid, epoch: Number(row.epoch), holder } : undefined;
  }

  /** Extends a lease still current; false when it expired and someone else took the session (or it was released). */
  async renew(lease: Lease, now: number, leaseMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('recording_leases')
      .set({ expires_at: now + leaseMs })
      .where('resource_id', '=', lease.resourceId)
      .where('epoch', '=', lease.epoch)
      .where('holder', '=', lease.holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Whether `lease` is still the session's current one (the fence every write of a recorder passes). */
  async isCurrent(lease: Lease, now: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('recording_leases')
      .select(['epoch', 'expires_at'])
      .where('resource_id', '=', lease.resourceId)
      .executeTakeFirst();
    return row !== undefined && Number(row.epoch) === lease.epoch && Number(row.expires_at) > now;
  }

  /** Whether some recorder holds the session now (false during a failover switch). */
  async isHeld(resourceId: string, now: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('recording_leases')
      .select('expires_at')
      .where('resource_id', '=', resourceId)
      .executeTakeFirst();
    return row !== undefined && Number(row.expires_at) > now;
  }

  /** The recorders that hold or last held these sessions (acquire's excludeResourceIds → recorder ids). */
  async holdersOf(resourceIds: readonly string[]): Promise<string[]> {
    if (resourceIds.length === 0) return [];
    const rows = await this.db.selectFrom('recording_leases').select('holder').where('resource_id', 'in', [...resourceIds]).execute();
    return [...new Set(rows.map((r) => r.holder))];
  }

  /** Ends the lease at once (the session stopped), keeping the epoch so a late duplicate cannot resume it. */
  async release(lease: Lease): Promise<void> {
    await this.db
      .updateTable('recording_leases')
      .set({ expires_at: 0 })
      .where('resource_id', '=', lease.resourceId)
      .where('epoch', '=', lease.epoch)
      .execute();
  }
}
