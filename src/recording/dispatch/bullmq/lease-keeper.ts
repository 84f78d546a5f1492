/**
 * Keeps a recorder's lease on one session: renews it on the injected clock every third of its length and fences the
 * recorder (nothing it writes reaches the store) once the lease is lost, let go, or past its end by our own clock,
 * renewed or not (docs/deployment.md). Its state is a `LeaseState`, changed only by `leaseAfter`.
 */
import type { Clock, TimerHandle } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import type { WriteFence } from '../types.ts';
import type { Lease, LeaseStore } from './lease.ts';

/**
 * `held` until `validUntil` (our clock); `completed` once the session ended here with the lease still ours: its
 * reports still waiting for the database are then its last word, not stale, whatever the time. `lost`: a renewal
 * was refused, or could not reach the database before the lease ran out. `left`: this process let the session go.
 */
export type LeaseState =
  | { readonly kind: 'held'; readonly validUntil: number; readonly completed: boolean }
  | { readonly kind: 'lost' }
  | { readonly kind: 'left' };

export type LeaseEvent =
  | { readonly kind: 'renewed'; readonly askedAt: number }
  | { readonly kind: 'refused' }
  | { readonly kind: 'unreachable'; readonly now: number }
  | { readonly kind: 'completed' }
  | { readonly kind: 'leave' };

export const LeaseState = Object.freeze({
  create: (acquiredAt: number, leaseMs: number): LeaseState => ({ kind: 'held', validUntil: acquiredAt + leaseMs, completed: false }),
  isFenced: (s: LeaseState): boolean => s.kind !== 'held',
  /** A recorder's writes (its uploads) are allowed. */
  writable: (s: LeaseState, now: number): boolean => s.kind === 'held' && now < s.validUntil,
  /** A report still waiting for the database is applied as this session's own, not as stale. */
  reportable: (s: LeaseState, now: number): boolean => s.kind === 'held' && (s.completed || now < s.validUntil),
});

/** The one transition function of a lease: lost and left are final. */
export function leaseAfter(s: LeaseState, ev: LeaseEvent, leaseMs: number): LeaseState {
  if (ev.kind === 'leave') return { kind: 'left' };
  if (s.kind !== 'held') return s;
  switch (ev.kind) {
    case 'renewed':
      return { ...s, validUntil: ev.askedAt + leaseMs };
    case 'refused':
      return { kind: 'lost' };
    case 'unreachable':
      // Database unreachable: keep recording while the lease lasts, then fence.
      return ev.now < s.validUntil ? s : { kind: 'lost' };
    case 'completed':
      return { ...s, completed: true };
  }
}

export interface LeaseKeeperDeps {
  readonly leases: LeaseStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly leaseMs: number;
  /** The lease was lost: the recorder must stop writing (called once). */
  readonly onLost: () => void;
  /** After each successful renewal (e.g. to see whether the session ended elsewhere). */
  readonly afterRenewal: () => Promise<void>;
}

export class LeaseKeeper {
  #state: LeaseState;
  #renewal: TimerHandle | undefined;
  /** No renewal is armed any more (the session is over here). */
  #ended = false;
  /** For the recorder's writes. */
  readonly fence: WriteFence;
  /** For its reports (see LeaseState.reportable). */
  readonly reportFence: WriteFence;

  constructor(
    private readonly d: LeaseKeeperDeps,
    readonly lease: Lease,
    acquiredAt: number,
  ) {
    this.#state = LeaseState.create(acquiredAt, d.leaseMs);
    this.fence = { holds: () => LeaseState.writable(this.#state, d.clock.now()) };
    this.reportFence = { holds: () => LeaseState.reportable(this.#state, d.clock.now()) };
    this.#arm();
  }

  get fenced(): boolean {
    return LeaseState.isFenced(this.#state);
  }

  /** The session ended here: see LeaseState `completed`. */
  complete(): void {
    this.#step({ kind: 'completed' });
  }

  /** Lets the session go (this process shuts down): fenced at once, the lease released for the next recorder. */
  async leave(): Promise<void> {
    this.#step({ kind: 'leave' });
    this.stopRenewing();
    await this.d.leases.release(this.lease).catch(() => undefined);
  }

  /** The session is over here: no renewal is armed any more. */
  stopRenewing(): void {
    this.#ended = true;
    if (this.#renewal) this.d.clock.clearTimeout(this.#renewal);
    this.#renewal = undefined;
  }

  /** The session is over here: the lease is released unless it was already lost or let go. */
  async end(): Promise<void> {
    this.stopRenewing();
    if (!this.fenced) await this.d.leases.release(this.lease).catch(() => undefined);
  }

  #step(ev: LeaseEvent): void {
    this.#state = leaseAfter(this.#state, ev, this.d.leaseMs);
  }

  #arm(): void {
    if (this.#ended || this.fenced) return;
    this.#renewal = this.d.clock.setTimeout(() => void this.#renew(), this.d.leaseMs / 3);
  }

  async #renew(): Promise<void> {
    if (this.fenced) return;
    const asked = this.d.clock.now();
    try {
      this.#step((await this.d.leases.renew(this.lease, asked, this.d.leaseMs)) ? { kind: 'renewed', askedAt: asked } : { kind: 'refused' });
    } catch (e) {
      this.d.log.warn({ err: (e as Error).message }, 'lease renewal failed');
      this.#step({ kind: 'unreachable', now: this.d.clock.now() });
    }
    if (this.#state.kind === 'lost') {
      this.d.log.error('lease lost: this recorder stops writing; another takes the session');
      this.d.onLost();
      return;
    }
    if (this.fenced) return;
    await this.d.afterRenewal();
    this.#arm();
  }
}
