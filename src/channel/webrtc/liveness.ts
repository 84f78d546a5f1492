import type { Clock, TimerHandle } from '../../clock/index.ts';

/**
 * Calls `onIdle` once when `touch()` has not been called for `timeoutMs` (counted from creation too, so a
 * peer that never connects is dropped as well). `onIdle` may return false to excuse the silence and keep
 * watching. Runs on the injected clock.
 */
export class Liveness {
  #last: number;
  #timer: TimerHandle | undefined;
  #stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly onIdle: () => boolean | void,
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
        if (this.onIdle() === false) {
          this.#last = this.clock.now();
          this.#arm(this.timeoutMs);
          return;
        }
        this.#stopped = true;
      } else {
        this.#arm(this.timeoutMs - idle);
      }
    }, ms);
  }
}
