import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { FileRow } from './store.ts';

export interface UploadQueueDeps {
  readonly clock: Clock;
  /** Attempts running at once. */
  readonly concurrency: number;
  /** One upload attempt of a held row. */
  readonly attempt: (row: FileRow) => Promise<void>;
  /** An attempt that rejected (its bookkeeping failed); must not throw. */
  readonly onAttemptRejected: (row: FileRow, err: unknown) => void;
  /** After each attempt, once its slot is free. */
  readonly afterAttempt: (row: FileRow) => void;
}

/** Enqueue order: oldest first, then by id (ids sort by enqueue time and counter). */
export const enqueueOrder = (a: FileRow, b: FileRow): number =>
  a.enqueued_at - b.enqueued_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const keyOf = (r: FileRow): string => `${r.sid}\0${r.key}`;

/**
 * The pending files this process holds: ready ones, ones in flight, and ones waiting out a retry delay on the
 * injected clock. Oldest first, at most `concurrency` at once, never two uploads of one key at the same time.
 * It knows nothing of the manifest or the bucket; the spool tells it when a row is done.
 */
export class UploadQueue {
  readonly #d: UploadQueueDeps;
  readonly #held = new Map<string, FileRow>();
  readonly #ready = new Set<string>();
  readonly #timers = new Map<string, TimerHandle>();
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #inFlightKeys = new Set<string>();
  #bytes = 0;
  #closed = false;

  constructor(deps: UploadQueueDeps) {
    this.#d = deps;
  }

  /** Bytes of the spool files of the rows held. */
  get bytes(): number {
    return this.#bytes;
  }

  has(id: string): boolean {
    return this.#held.has(id);
  }

  /** Files held and the enqueue time (ms) of the oldest, for the backlog metrics. */
  backlog(): { readonly files: number; readonly oldestEnqueuedAt: number | undefined } {
    let oldest: number | undefined;
    for (const r of this.#held.values()) if (oldest === undefined || Number(r.enqueued_at) < oldest) oldest = Number(r.enqueued_at);
    return { files: this.#held.size, oldestEnqueuedAt: oldest };
  }

  rowsOf(sid: string): FileRow[] {
    return [...this.#held.values()].filter((r) => r.sid === sid);
  }

  /** Holds rows not held yet and makes them ready. */
  add(rows: readonly FileRow[]): void {
    for (const row of rows) {
      if (this.#held.has(row.id)) continue;
      this.#held.set(row.id, row);
      this.#bytes += Number(row.bytes);
      this.#ready.add(row.id);
    }
    this.#pump();
  }

  /** Counts a failed attempt on the held row (a row tried at least once no longer holds back `settled`). */
  setAttempts(id: string, attempts: number): void {
    const row = this.#held.get(id);
    if (row) this.#held.set(id, { ...row, attempts });
  }

  /** Lets go of a row: done (uploaded, superseded, lost) or no longer ours. An attempt in flight runs to its end. */
  remove(id: string): void {
    const row = this.#held.get(id);
    if (!row) return;
    this.#held.delete(id);
    this.#bytes -= Number(row.bytes);
    this.#ready.delete(id);
    const t = this.#timers.get(id);
    if (t) this.#d.clock.clearTimeout(t);
    this.#timers.delete(id);
  }

  /** The ids of the rows held now. */
  heldIds(): Set<string> {
    return new Set(this.#held.keys());
  }

  /**
   * After a lease renewal asked about the rows in `asked`: lets go of those not in its answer `held` (another process
   * owns them now), except rows in flight (they finish their attempt). A row added while the renewal ran was not
   * asked about and stays.
   */
  retain(asked: ReadonlySet<string>, held: ReadonlySet<string>): void {
    for (const id of asked) if (!held.has(id) && !this.#inFlight.has(id)) this.remove(id);
  }

  /** A later copy of the row's key is held: the row need not go up. */
  hasNewerCopy(row: FileRow): boolean {
    return [...this.#held.values()].some((r) => r.sid === row.sid && r.key === row.key && enqueueOrder(r, row) > 0);
  }

  /** Every held row of the session was tried at least once and none is in flight. */
  settled(sid: string): boolean {
    return !this.rowsOf(sid).some((r) => Number(r.attempts) === 0 || this.#inFlight.has(r.id));
  }

  /** Whether a row of the session is in flight or ready to go (false: every one waits out a delay, or none is held). */
  busy(sid: string): boolean {
    return this.rowsOf(sid).some((r) => this.#inFlight.has(r.id) || this.#ready.has(r.id));
  }

  /** Makes the row ready again after `delay` on the clock (once: a second call while it waits does nothing). */
  retryLater(id: string, delay: number): void {
    if (this.#closed || !this.#held.has(id) || this.#timers.has(id)) return;
    const t = this.#d.clock.setTimeout(() => {
      this.#timers.delete(id);
      if (!this.#held.has(id)) return;
      this.#ready.add(id);
      this.#pump();
    }, delay);
    this.#timers.set(id, t);
  }

  /** Rows of the session waiting out a retry delay are ready now. */
  retryNow(sid: string): void {
    for (const r of this.rowsOf(sid)) {
      const t = this.#timers.get(r.id);
      if (!t) continue;
      this.#d.clock.clearTimeout(t);
      this.#timers.delete(r.id);
      this.#ready.add(r.id);
    }
    this.#pump();
  }

  /** Starts nothing more and waits for the attempts in flight; held rows stay (for the next process). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers.values()) this.#d.clock.clearTimeout(t);
    this.#timers.clear();
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  #pump(): void {
    if (this.#closed) return;
    while (this.#inFlight.size < this.#d.concurrency) {
      const next = [...this.#ready]
        .map((id) => this.#held.get(id))
        .filter((r): r is FileRow => r !== undefined && !this.#inFlightKeys.has(keyOf(r)))
        .sort(enqueueOrder)[0];
      if (!next) break;
      this.#ready.delete(next.id);
      const p = this.#d
        .attempt(next)
        .catch((e: unknown) => this.#d.onAttemptRejected(next, e))
        .finally(() => {
          this.#inFlight.delete(next.id);
          this.#inFlightKeys.delete(keyOf(next));
          this.#d.afterAttempt(next);
          this.#pump();
        });
      this.#inFlightKeys.add(keyOf(next));
      this.#inFlight.set(next.id, p);
    }
    // Drop ids whose rows are gone (uploaded, superseded).
    for (const id of this.#ready) if (!this.#held.has(id)) this.#ready.delete(id);
  }
}
