/** The idle exit of a channel session (`maxIdleTime` with nobody to record), on the injected clock. */
import type { Clock, TimerHandle } from '../../../clock/index.ts';

/** Fires once after `ms` of continuous idleness; arming again while armed keeps the first deadline. */
export class IdleTimer {
  #timer: TimerHandle | undefined;
  #done = false;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  /** Idle now: starts the countdown unless it runs already. */
  arm(): void {
    if (this.#timer || this.#done) return;
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#done = true;
      this.onIdle();
    }, this.ms);
  }

  /** Someone to record again: the countdown starts over next time. */
  disarm(): void {
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The session ends: never fires again. */
  dispose(): void {
    this.disarm();
    this.#done = true;
  }
}
