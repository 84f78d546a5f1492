import type { Clock, TimerHandle } from '../clock/index.ts';
import { Outbox, OutboxError } from '../outbox/index.ts';
import { safeUrl, type Logger } from '../log/index.ts';
import type { OutboundPolicy } from '../net/index.ts';
import type { WebhookTarget } from './config.ts';
import type { NotifyAttemptRow, NotifyDeliveryRow } from './db.ts';
import { encodeEnvelope } from './envelope.ts';
import { afterFailure } from './retry.ts';
import { sendOnce } from './send.ts';
import { claimOwnerState, newOwnerId, pruneSenderMarks, SenderMark } from './senders.ts';
import { signatureHeaders } from './signature.ts';
import type { NotifyStore } from './store.ts';

export interface DispatcherOptions {
  readonly store: NotifyStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly webhooks: Readonly<Record<string, WebhookTarget>>;
  readonly policy: OutboundPolicy;
  readonly timeoutMs: number;
  readonly retryDelaysMs: readonly number[];
  /** Delivered and skipped events older than this are removed (at most every PRUNE_EVERY_MS); 0 keeps everything. */
  readonly retentionMs: number;
  /**
   * How often to look for pending work left by another process (a crashed peer on the shared PostgreSQL database);
   * 0 for a single process (SQLite), which resumes at start only and so keeps no timer armed while idle.
   */
  readonly sweepIntervalMs: number;
  /** Each attempt's outcome and duration, for /metrics. */
  readonly meter?: DeliveryMeter | undefined;
  /**
   * Where the record of a delivery the database could not take is journalled (src/outbox/outbox.ts); undefined: in
   * memory only.
   */
  readonly journalDir?: string | undefined;
  /**
   * The machine-wide directory of sender marks (src/notify/senders.ts): a claim of a process of this machine that
   * has died while sending is taken at once instead of after its lease. Undefined: every claim waits for its lease.
   */
  readonly sendersDir?: string | undefined;
}

/** A delivery (HTTP 200) whose record waits for the database: the event is not sent again meanwhile. */
interface KeptDelivery {
  readonly appId: string;
  readonly sid: string;
  readonly attempt: NotifyAttemptRow;
  readonly deliveredMs: number;
}

/** How long a stop keeps trying to record deliveries before leaving them in the journal. */
const RECORD_FLUSH_MS = 5_000;

/** `retrying`: failed, another attempt is scheduled; `failed`: failed and given up. */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed';
export type DeliveryMeter = (outcome: AttemptOutcome, seconds: number) => void;

// A crashed sender's claim expires after the request timeout plus this margin; another process then resends. A
// sender of this machine known to be gone (senders.ts) loses its claims at once.
const LEASE_MARGIN_MS = 30_000;
// A session held by a live sender of this machine is looked at again this often: if that sender dies, its claim is
// taken within this time instead of at the end of its lease.
export const OWNER_CHECK_MS = 2_000;
// Every process with peers looks for pending work this often, so a crashed peer's events go out without a restart.
export const SWEEP_INTERVAL_MS = 60_000;
const PRUNE_EVERY_MS = 600_000;
const ERROR_BACKOFF_MS = 30_000;
// Requests in flight at once across all sessions, so a burst of sessions can't open thousands of sockets.
const MAX_CONCURRENT_SENDS = 32;

/**
 * Delivers stored events, one session at a time in sequence order: a session's next event waits until the previous
 * one is delivered or given up. Waits between retries are Clock timers; all state lives in the store, so a new
 * process resumes where the last one stopped.
 */
export class Dispatcher {
  readonly #o: DispatcherOptions;
  readonly #owner = newOwnerId();
  readonly #mark: SenderMark;
  /** A kept record was left in the journal at close: the mark stays `kept`. */
  #keptLeft = false;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  readonly #timers = new Map<string, TimerHandle>();
  readonly #inflight = new Set<AbortController>();
  #sweep: TimerHandle | undefined;
  #sweeping: Promise<void> | undefined;
  #lastPrune = -Infinity;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];
  #closed = false;
  #replayed = false;
  /**
   * Deliveries the receiver took (HTTP 200) whose record the database did not take (an outage between the POST and
   * its record): kept and written when it answers, journalled meanwhile. Their sessions send nothing until then, so
   * the event is not sent twice by this process, nor by another one while the claim's lease runs.
   */
  readonly #records: Outbox<KeptDelivery>;
  /** Sessions with a kept record: `#drain` leaves them alone until it is written. */
  readonly #recording = new Map<string, number>();

  constructor(o: DispatcherOptions) {
    this.#o = o;
    this.#mark = new SenderMark(o.sendersDir, this.#owner);
    this.#records = new Outbox<KeptDelivery>({
      name: 'notify-delivered',
      clock: o.clock,
      log: o.log,
      write: async ([k]) => this.#o.store.recordDelivered(k!.attempt, k!.deliveredMs),
      maxBatch: 1,
      maxItems: 100_000,
      retryBaseMs: 250,
      retryMaxMs: 5_000,
      retryForMs: 15 * 60_000,
      dir: o.journalDir,
    });
  }

  /** Keeps a delivery's record until the database takes it; the session resumes sending afterwards. */
  #keepRecord(k: KeptDelivery): void {
    const key = `${k.appId}\u0000${k.sid}`;
    // Before the journal: a process that finds this one dead must not resend what it holds (senders.ts).
    this.#mark.set('kept');
    this.#recording.set(key, (this.#recording.get(key) ?? 0) + 1);
    const done = () => {
      const n = (this.#recording.get(key) ?? 1) - 1;
      if (n > 0) this.#recording.set(key, n);
      else this.#recording.delete(key);
      if (this.#recording.size === 0 && !this.#keptLeft && !this.#closed) this.#mark.set('sending');
      this.kick(k.appId, k.sid);
    };
    this.#records.submit(key, k).then(done, (e: Error) => {
      if (e instanceof OutboxError && e.reason === 'left_in_journal') this.#keptLeft = true;
      this.#o.log.warn({ appId: k.appId, sid: k.sid, noticeId: k.attempt.notice_id, err: e.message }, 'notify: the record of a delivered event was not written');
      done();
    });
  }

  /** Resumes every session with pending events, then keeps sweeping for ones left by crashed peers. */
  async resume(): Promise<void> {
    if (this.#closed) return;
    // Records of deliveries a stopped process left in its journal go in before anything is sent again.
    if (!this.#replayed) {
      this.#replayed = true;
      await this.#records.replay();
      await this.#records.whenEmpty(RECORD_FLUSH_MS);
    }
    const work = this.#sweepOnce();
    this.#sweeping = work;
    try {
      await work;
    } finally {
      if (this.#sweeping === work) this.#sweeping = undefined;
    }
    if (this.#closed || this.#o.sweepIntervalMs <= 0) return;
    this.#sweep = this.#o.clock.setTimeout(() => {
      this.#sweep = undefined;
      this.resume().catch((e: unknown) => this.#o.log.error({ err: e }, 'notify: resuming pending deliveries failed'));
    }, this.#o.sweepIntervalMs);
  }

  async #sweepOnce(): Promise<void> {
    pruneSenderMarks(this.#o.sendersDir);
    const sessions = await this.#o.store.pendingSessions();
    for (const s of sessions) this.kick(s.appId, s.sid);
    await this.maybePrune();
  }

  /** Removes old delivered/skipped events; cheap to call often (runs at most every PRUNE_EVERY_MS of clock time). */
  async maybePrune(): Promise<void> {
    const now = this.#o.clock.now();
    if (this.#o.retentionMs <= 0 || this.#closed || now - this.#lastPrune < PRUNE_EVERY_MS) return;
    this.#lastPrune = now;
    const pruned = await this.#o.store.prune(now - this.#o.retentionMs);
    if (pruned > 0) this.#o.log.info({ pruned }, 'notify: removed delivered and skipped events past retention');
  }

  /** Makes sure the session's queue is being worked on. */
  kick(appId: string, sid: string): void {
    if (this.#closed) return;
    const key = `${appId}\u0000${sid}`;
    if (this.#running.has(key)) {
      this.#again.add(key);
      return;
    }
    const t = this.#timers.get(key);
    if (t) this.#o.clock.clearTimeout(t);
    this.#timers.delete(key);
    const run = this.#drain(key, appId, sid)
      .catch((e: unknown) => {
        // Typically the database was briefly unavailable; the events are stored, so try the session again later.
        this.#o.log.error({ err: e, appId, sid }, 'notify: delivery loop failed; retrying the session shortly');
        if (!this.#closed) this.#wake(key, appId, sid, this.#o.clock.now() + ERROR_BACKOFF_MS);
      })
      .finally(() => {
        this.#running.delete(key);
        if (this.#again.delete(key)) this.kick(appId, sid);
      });
    this.#running.set(key, run);
  }

  #wake(key: string, appId: string, sid: string, atMs: number): void {
    const old = this.#timers.get(key);
    if (old) this.#o.clock.clearTimeout(old);
    const t = this.#o.clock.setTimeout(() => {
      this.#timers.delete(key);
      this.kick(appId, sid);
    }, atMs - this.#o.clock.now());
    this.#timers.set(key, t);
  }

  async #drain(key: string, appId: string, sid: string): Promise<void> {
    const { store, clock } = this.#o;
    while (!this.#closed) {
      // A delivery of this session waits for its record: nothing more goes out before it is written.
      if (this.#recording.has(key)) return;
      const row = await store.nextPending(appId, sid);
      if (!row || this.#closed) return;
      const now = clock.now();
      if (row.next_attempt_ms !== null && row.next_attempt_ms > now) return this.#wake(key, appId, sid, row.next_attempt_ms);
      let takeFrom: string | undefined;
      if (row.lease_owner !== null && row.lease_owner !== this.#owner && (row.lease_until ?? 0) > now) {
        const leaseEnd = row.lease_until ?? now;
        const owner = claimOwnerState(this.#o.sendersDir, row.lease_owner);
        if (owner === 'unknown') return this.#wake(key, appId, sid, leaseEnd);
        if (owner === 'alive') return this.#wake(key, appId, sid, Math.min(leaseEnd, now + OWNER_CHECK_MS));
        // Its sender died while sending (no 200 it could not record): the event goes out again now.
        this.#o.log.info({ appId, sid, noticeId: row.notice_id, owner: row.lease_owner }, 'notify: taking the claim of a sender that has died');
        takeFrom = row.lease_owner;
      }
      const target = this.#o.webhooks[appId];
      if (!target) {
        await store.settle(row.notice_id, 'skipped', `no webhook configured for app ${appId}`);
        continue;
      }
      await this.#acquire();
      try {
        if (this.#closed) return;
        const at = clock.now();
        const leaseEnd = at + this.#o.timeoutMs + LEASE_MARGIN_MS;
        // Another process took it (or it changed under us): look again soon, when that claim's owner can be judged.
        if (!(await store.claim(row, this.#owner, at, leaseEnd, takeFrom))) return this.#wake(key, appId, sid, at + OWNER_CHECK_MS);
        await this.#attempt(row, target);
      } finally {
        this.#releaseSlot();
      }
    }
  }

  async #acquire(): Promise<void> {
    if (this.#busy < MAX_CONCURRENT_SENDS) {
      this.#busy++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #releaseSlot(): void {
    const next = this.#waiting.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else this.#busy--;
  }

  async #attempt(row: NotifyDeliveryRow, target: WebhookTarget): Promise<void> {
    const { store, clock, log } = this.#o;
    const attempt = row.attempts + 1;
    const notifyMs = clock.now();
    const body = encodeEnvelope(row.notice_id, row.event_type, notifyMs, row.payload);
    const controller = new AbortController();
    this.#inflight.add(controller);
    const result = await sendOnce({
      url: target.url,
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'reeltime-notify/1', ...signatureHeaders(body, target.secret) },
      policy: this.#o.policy,
      clock,
      timeoutMs: this.#o.timeoutMs,
      controller,
    }).finally(() => this.#inflight.delete(controller));
    if (result.interrupted) {
      await store.release(row.notice_id, this.#owner);
      return;
    }
    const ctx = { noticeId: row.notice_id, appId: row.app_id, sid: row.sid, sequence: row.sequence, attempt };
    const record = {
      notice_id: row.notice_id,
      attempt,
      at_ms: notifyMs,
      http_status: result.httpStatus,
      error: result.error,
      duration_ms: result.durationMs,
    };
    const seconds = result.durationMs / 1000;
    if (result.ok) {
      this.#o.meter?.('delivered', seconds);
      const deliveredMs = clock.now();
      try {
        await store.recordDelivered(record, deliveredMs);
      } catch (e) {
        log.warn({ ...ctx, err: (e as Error).message }, 'notify: delivered, but the database did not take the record; kept');
        this.#keepRecord({ appId: row.app_id, sid: row.sid, attempt: record, deliveredMs });
      }
      log.debug(ctx, 'notify: event delivered');
      return;
    }
    const next = afterFailure(attempt, this.#o.retryDelaysMs, clock.now());
    this.#o.meter?.(next.kind === 'retry' ? 'retrying' : 'failed', seconds);
    if (next.kind === 'retry') {
      await store.recordAttempt(record, { status: 'pending', nextAttemptMs: next.atMs, deliveredMs: null, lastError: result.error });
      log.warn({ ...ctx, url: safeUrl(target.url), error: result.error, retryAtMs: next.atMs }, 'notify: webhook attempt failed');
    } else {
      await store.recordAttempt(record, { status: 'failed', nextAttemptMs: null, deliveredMs: null, lastError: result.error });
      log.error({ ...ctx, url: safeUrl(target.url), error: result.error }, 'notify: webhook delivery failed; event kept as failed');
    }
  }

  /** Stops sending; an attempt in flight is abandoned uncounted and goes out again after restart. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#records.close(RECORD_FLUSH_MS);
    if (this.#sweep) this.#o.clock.clearTimeout(this.#sweep);
    for (const t of this.#timers.values()) this.#o.clock.clearTimeout(t);
    this.#timers.clear();
    for (const c of this.#inflight) c.abort();
    await Promise.allSettled([...this.#running.values(), this.#sweeping]);
    this.#mark.close(this.#keptLeft || this.#recording.size > 0);
  }
}
