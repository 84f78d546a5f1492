/**
 * The expiry timers of live sessions (resourceExpiredHour, web maxRecordingHour), one per resource, on the injected
 * clock. When one fires the runtime applies `timerFired`, which re-arms it when the deadline is still ahead.
 */
import type { Clock, TimerHandle } from '../../clock/index.ts';

/** Node timers overflow past 2^31-1 ms; long deadlines are re-armed in steps of at most a day. */
export const MAX_TIMER_MS = 24 * 3600 * 1000;

export class ExpiryTimers {
  readonly #timers = new Map<string, TimerHandle>();
  #closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (resourceId: string) => void,
  ) {}

  /** Arms (or re-arms) the resource's timer for `at`; a step of at most MAX_TIMER_MS. */
  arm(resourceId: string, at: number): void {
    if (this.#closed || !Number.isFinite(at)) return;
    this.cancel(resourceId);
    const delay = Math.min(Math.max(0, at - this.clock.now()), MAX_TIMER_MS);
    this.#timers.set(
      resourceId,
      this.clock.setTimeout(() => {
        this.#timers.delete(resourceId);
        this.onDue(resourceId);
      }, delay),
    );
  }

  cancel(resourceId: string): void {
    const t = this.#timers.get(resourceId);
    if (t) this.clock.clearTimeout(t);
    this.#timers.delete(resourceId);
  }

  /** Clears every timer; none is armed afterwards. */
  close(): void {
    this.#closed = true;
    for (const t of this.#timers.values()) this.clock.clearTimeout(t);
    this.#timers.clear();
  }
}
