import type { Clock, TimerHandle } from '../clock/index.ts';

/**
 * Calls `onIdle` once when `touch()` has not been called for `timeoutMs` (counted from creation too, so a
 * peer that never connects is dropped as well). Runs on the injected clock.
 */
export class Liveness {
  #last: number;
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly onIdle: () => void,
  ) {
    this.#last = clock.now();
    this.#arm(timeoutMs);
  }

  touch(): void {
    this.#last = this.clock.now();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) this.clock.clearTimeout(this.#timer);
  }

  #arm(ms: number): void {
    this.#timer = this.clock.setTimeout(() => {
      if (this.#stopped) return;
      const idle = this.clock.now() - this.#last;
      if (idle >= this.timeoutMs) {
        this.#stopped = true;
        this.onIdle();
      } else {
        this.#arm(this.timeoutMs - idle);
      }
    }, ms);
  }
}
