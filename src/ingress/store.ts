import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { IngressRow } from './db.ts';
import type { Ingress, IngressKind, IngressState, RtspTransport } from './types.ts';

const fromRow = (r: IngressRow): Ingress => ({
  ingressId: r.ingress_id,
  appId: r.app_id,
  cname: r.cname,
  uid: r.uid,
  kind: r.kind as IngressKind,
  ...(r.url !== null ? { url: r.url } : {}),
  ...(r.stream_key !== null ? { streamKey: r.stream_key } : {}),
  state: r.state as IngressState,
  ...(r.error !== null ? { error: r.error } : {}),
  createdMs: Number(r.created_ms),
  updatedMs: Number(r.updated_ms),
  ...(r.port !== null ? { port: Number(r.port) } : {}),
  ...(r.transport !== null ? { transport: r.transport as RtspTransport } : {}),
  ...(r.source_token !== null ? { token: r.source_token } : {}),
  ...(r.live_until_ms !== null ? { liveUntilMs: Number(r.live_until_ms) } : {}),
});

/** Thrown by insert when another ingress already publishes as this uid in this channel. */
export class ParticipantTakenError extends Error {
  override readonly name = 'ParticipantTakenError';
}

/** Thrown by insert when another ingress took the same SRT port meanwhile. */
export class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
}

/** The ingress table (SQLite or PostgreSQL). */
export class IngressStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(i: Ingress): Promise<void> {
    const taken = await this.db
      .selectFrom('ingress_sources')
      .select('ingress_id')
      .where('app_id', '=', i.appId)
      .where('cname', '=', i.cname)
      .where('uid', '=', i.uid)
      .executeTakeFirst();
    if (taken) throw new ParticipantTakenError();
    try {
      await this.db
        .insertInto('ingress_sources')
        .values({
          ingress_id: i.ingressId,
          app_id: i.appId,
          cname: i.cname,
          uid: i.uid,
          kind: i.kind,
          url: i.url ?? null,
          stream_key: i.streamKey ?? null,
          state: i.state,
          error: i.error ?? null,
          created_ms: i.createdMs,
          updated_ms: i.updatedMs,
          port: i.port ?? null,
          transport: i.transport ?? null,
          holder: null,
          held_until_ms: null,
          source_token: i.token ?? null,
          live_until_ms: null,
        })
        .execute();
    } catch (e) {
      // Two creates racing for one participant: the unique index refuses the second.
      const message = (e as Error).message;
      if (/unique|duplicate/i.test(message)) throw /port/.test(message) ? new PortTakenError() : new ParticipantTakenError();
      throw e;
    }
  }

  async get(ingressId: string): Promise<Ingress | undefined> {
    const r = await this.db.selectFrom('ingress_sources').selectAll().where('ingress_id', '=', ingressId).executeTakeFirst();
    return r ? fromRow(r) : undefined;
  }

  /** An app's ingresses, oldest first. */
  async list(appId: string): Promise<readonly Ingress[]> {
    const rows = await this.db.selectFrom('ingress_sources').selectAll().where('app_id', '=', appId).orderBy('created_ms').orderBy('ingress_id').execute();
    return rows.map(fromRow);
  }

  /** Every ingress of these kinds, whatever the app (the listeners and pulls of a channel process). */
  async listKinds(kinds: readonly IngressKind[]): Promise<readonly Ingress[]> {
    return (await this.db.selectFrom('ingress_sources').selectAll().where('kind', 'in', kinds).execute()).map(fromRow);
  }

  /**
   * Takes or renews `holder`'s claim on pulling a source, until `now + ttlMs`: true when it holds it (it held it,
   * or nobody did, or the last holder's claim ran out). One process pulls each source, however many could.
   */
  async claim(ingressId: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('ingress_sources')
      .set({ holder, held_until_ms: now + ttlMs })
      .where('ingress_id', '=', ingressId)
      .where((w) => w.or([w('holder', 'is', null), w('holder', '=', holder), w('held_until_ms', '<', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Gives up `holder`'s claim (no-op when another holds it). */
  async release(ingressId: string, holder: string): Promise<void> {
    await this.db.updateTable('ingress_sources').set({ holder: null, held_until_ms: null }).where('ingress_id', '=', ingressId).where('holder', '=', holder).execute();
  }

  /** The ports SRT ingresses hold. */
  async portsInUse(): Promise<ReadonlySet<number>> {
    const rows = await this.db.selectFrom('ingress_sources').select('port').where('port', 'is not', null).execute();
    return new Set(rows.map((r) => Number(r.port)));
  }

  /** Whether a row was removed. */
  async remove(appId: string, ingressId: string): Promise<boolean> {
    const r = await this.db.deleteFrom('ingress_sources').where('app_id', '=', appId).where('ingress_id', '=', ingressId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Marks every `publishing` ingress `waiting` and drops every pull claim (after a restart: no publish survives its process). */
  async resetPublishing(now: number): Promise<number> {
    await this.db.updateTable('ingress_sources').set({ holder: null, held_until_ms: null }).where('holder', 'is not', null).execute();
    const r = await this.db.updateTable('ingress_sources').set({ state: 'waiting', updated_ms: now }).where('state', '=', 'publishing').executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /**
   * Records where an ingress is now (no-op when it was deleted meanwhile); `liveUntilMs` for `publishing`: until when
   * this process vouches for it (`keepLive` renews it).
   */
  async setState(ingressId: string, state: IngressState, error: string | undefined, now: number, liveUntilMs?: number): Promise<void> {
    await this.db
      .updateTable('ingress_sources')
      .set({ state, error: error ?? null, updated_ms: now, live_until_ms: state === 'publishing' ? (liveUntilMs ?? null) : null })
      .where('ingress_id', '=', ingressId)
      .execute();
  }

  /** Renews a publish's `liveUntilMs` (no-op once it is no longer publishing). */
  async keepLive(ingressId: string, liveUntilMs: number): Promise<void> {
    await this.db.updateTable('ingress_sources').set({ live_until_ms: liveUntilMs }).where('ingress_id', '=', ingressId).where('state', '=', 'publishing').execute();
  }
}
