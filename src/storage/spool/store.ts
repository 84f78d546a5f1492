import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import type { StorageFilesTable, StorageSessionsTable } from '../db.ts';
import type { SpooledFile } from './types.ts';

export type FileRow = StorageFilesTable;
export type SessionRow = StorageSessionsTable;

/** Persistence of the spool manifest (SQLite and PostgreSQL through one Kysely schema). */
export class SpoolStore {
  constructor(private readonly db: Kysely<Database>) {}

  async upsertSession(row: SessionRow): Promise<void> {
    await this.db
      .insertInto('storage_sessions')
      .values(row)
      .onConflict((oc) =>
        oc.column('sid').doUpdateSet({
          storage: row.storage,
          finished_at: null,
          completed_at: null,
        }),
      )
      .execute();
  }

  /**
   * Takes over pending files of this node that nobody holds: released by a closed process, or whose owner's
   * lease ran out (it crashed), or whose owner is one of `goneOwners` (known to have died). The conditional UPDATE
   * is atomic per row, so two processes never both win.
   */
  async claimOrphans(node: string, owner: string, now: number, leaseUntil: number, goneOwners: readonly string[] = []): Promise<FileRow[]> {
    const rows = await this.db
      .updateTable('storage_files')
      .set({ owner, lease_until: leaseUntil })
      .where('state', '=', 'pending')
      .where('node', '=', node)
      .where((eb) =>
        eb.or([
          eb('owner', 'is', null),
          eb('lease_until', 'is', null),
          eb('lease_until', '<', now),
          ...(goneOwners.length > 0 ? [eb('owner', 'in', goneOwners)] : []),
        ]),
      )
      .returningAll()
      .execute();
    return rows.sort((a, b) => a.enqueued_at - b.enqueued_at || (a.id < b.id ? -1 : 1));
  }

  /** The owners holding pending files of this node, other than `except`. */
  async pendingOwners(node: string, except: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('storage_files')
      .select('owner')
      .distinct()
      .where('state', '=', 'pending')
      .where('node', '=', node)
      .where('owner', 'is not', null)
      .where('owner', '!=', except)
      .execute();
    return rows.flatMap((r) => (r.owner === null ? [] : [r.owner]));
  }

  /** Extends this owner's leases; returns the ids it still holds. */
  async renewLeases(owner: string, leaseUntil: number): Promise<Set<string>> {
    const rows = await this.db
      .updateTable('storage_files')
      .set({ lease_until: leaseUntil })
      .where('owner', '=', owner)
      .where('state', '=', 'pending')
      .returning('id')
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  async releaseLeases(owner: string): Promise<void> {
    await this.db
      .updateTable('storage_files')
      .set({ owner: null, lease_until: null })
      .where('owner', '=', owner)
      .where('state', '=', 'pending')
      .execute();
  }

  async pendingCount(sid: string): Promise<number> {
    const r = await this.db
      .selectFrom('storage_files')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('sid', '=', sid)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  async session(sid: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('storage_sessions').selectAll().where('sid', '=', sid).executeTakeFirst();
  }

  async setSessionStorage(sid: string, storage: string): Promise<void> {
    await this.db.updateTable('storage_sessions').set({ storage }).where('sid', '=', sid).execute();
  }

  async markFinished(sid: string, at: number): Promise<void> {
    await this.db.updateTable('storage_sessions').set({ finished_at: at }).where('sid', '=', sid).execute();
  }

  async markCompleted(sid: string, at: number): Promise<void> {
    await this.db.updateTable('storage_sessions').set({ completed_at: at }).where('sid', '=', sid).execute();
  }

  async insertFile(row: FileRow): Promise<void> {
    await this.db.insertInto('storage_files').values(row).execute();
  }

  async updateFile(id: string, patch: Partial<Omit<FileRow, 'id'>>): Promise<void> {
    await this.db.updateTable('storage_files').set(patch).where('id', '=', id).execute();
  }

  /**
   * A later copy of the row's key is in the manifest, waiting or uploaded (e.g. a restarted recorder's ended
   * playlist, while this row is a dead process's older copy adopted after its lease).
   */
  async hasNewerCopy(row: FileRow): Promise<boolean> {
    const r = await this.db
      .selectFrom('storage_files')
      .select('id')
      .where('sid', '=', row.sid)
      .where('key', '=', row.key)
      .where('state', 'in', ['pending', 'uploaded'])
      .where((eb) => eb.or([eb('enqueued_at', '>', row.enqueued_at), eb.and([eb('enqueued_at', '=', row.enqueued_at), eb('id', '>', row.id)])]))
      .limit(1)
      .executeTakeFirst();
    return r !== undefined;
  }

  /** The sealed storage configs of the sessions of `appIds` that wrote an object under `key` (the bucket's reader). */
  async objectStorages(key: string, appIds: readonly string[]): Promise<string[]> {
    if (appIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('storage_files')
      .innerJoin('storage_sessions', 'storage_sessions.sid', 'storage_files.sid')
      .select('storage_sessions.storage')
      .distinct()
      .where('storage_files.key', '=', key)
      .where('storage_sessions.app_id', 'in', [...appIds])
      .execute();
    return rows.map((r) => r.storage);
  }

  async sessionFiles(sid: string): Promise<FileRow[]> {
    return this.db
      .selectFrom('storage_files')
      .selectAll()
      .where('sid', '=', sid)
      .orderBy('enqueued_at')
      .orderBy('id')
      .execute();
  }
}

export function toSpooledFile(r: FileRow): SpooledFile {
  return {
    key: r.key,
    bytes: Number(r.bytes),
    state: r.state as SpooledFile['state'],
    attempts: Number(r.attempts),
    enqueuedAt: Number(r.enqueued_at),
    uploadedAt: r.uploaded_at === null ? undefined : Number(r.uploaded_at),
  };
}

/** Latest copy per key, in enqueue order of that copy; superseded copies left out. */
export function latestPerKey(rows: readonly FileRow[]): SpooledFile[] {
  const byKey = new Map<string, FileRow>();
  for (const r of rows) if (r.state !== 'superseded') byKey.set(r.key, r);
  return [...byKey.values()].map(toSpooledFile);
}
