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

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = nextId++;
    const t = setTimeout(() => {
      live.delete(id);
      fn();
    }, Math.max(0, ms));
    t.unref?.();
    live.set(id, t);
    return { id };
  },
  clearTimeout(handle: TimerHandle): void {
    const t = live.get(handle.id);
    if (t) clearTimeout(t);
    live.delete(handle.id);
  },
});
