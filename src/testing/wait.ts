/**
 * The one way a test waits: for a condition (a slice count, an event, a status), never for a fixed time. Checks
 * `condition` until it returns something truthy (which it resolves to), every `intervalMs`, and fails with
 * "timed out after <timeoutMs> ms waiting for <what>" otherwise. A condition that throws fails at once.
 */
export interface WaitOptions {
  /** What the test waits for, as the failure message names it; a function is asked at the failure (to show the state then). */
  readonly what: string | (() => string);
  /** Real time to give up after; generous by default so a loaded machine does not fail tests. Default 20 s. */
  readonly timeoutMs?: number;
  /** Real time between checks. Default 10 ms. */
  readonly intervalMs?: number;
  /**
   * Runs before every check, e.g. `() => clock.advance(1000)` so the code under test's ManualClock timers fire
   * while the test waits for their effect.
   */
  readonly beforeCheck?: () => void;
}

type Falsy = false | 0 | '' | null | undefined;

export async function waitUntil<T>(condition: () => T | Promise<T>, options: WaitOptions): Promise<Exclude<T, Falsy>> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.beforeCheck?.();
    const value = await condition();
    if (value) return value as Exclude<T, Falsy>;
    if (Date.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Lets pending promise callbacks and I/O callbacks run (no wall-clock wait): `rounds` turns of the event loop. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
