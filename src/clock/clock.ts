/** Opaque handle returned by Clock.setTimeout. */
export interface TimerHandle {
  readonly id: number;
}

/**
 * Every lifecycle timer (resource validity, idle exit, token expiry, retries) goes through a Clock,
 * so tests drive time with ManualClock instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

let nextId = 1;
const live = new Map<number, NodeJS.Timeout>();

/** Node fires a longer timeout at once (TimeoutOverflowWarning); 30-day idle or 720-hour timers are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = nextId++;
    const arm = (left: number): void => {
      const step = Math.min(left, MAX_TIMEOUT_MS);
      const t = setTimeout(() => {
        if (left > step) return arm(left - step);
        live.delete(id);
        fn();
      }, step);
      t.unref?.();
      live.set(id, t);
    };
    arm(Math.max(0, ms));
    return { id };
  },
  clearTimeout(handle: TimerHandle): void {
    const t = live.get(handle.id);
    if (t) clearTimeout(t);
    live.delete(handle.id);
  },
});
