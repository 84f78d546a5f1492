/**
 * The mix's frame clock on the injected Clock (docs/recording-mix.md, "Live pipeline"): output frame n is due at
 * origin + n/fps. Each wake-up emits every frame that has fallen due, so a late wake-up (a busy event loop)
 * catches up instead of slowing the output: after t seconds exactly ⌊t·fps⌋ + 1 frames have been emitted,
 * whatever any input does.
 */
import type { Clock, TimerHandle } from '../../../clock/index.ts';

export class FrameClock {
  #next = 0;
  #timer: TimerHandle | undefined;
  #running = false;

  constructor(
    private readonly clock: Clock,
    readonly originMs: number,
    readonly fps: number,
    private readonly onFrame: (index: number) => void,
  ) {}

  /** Frames emitted so far. */
  get emitted(): number {
    return this.#next;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#wake();
  }

  stop(): void {
    this.#running = false;
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Emits frames due up to and including `nowMs`' frame. */
  #wake(): void {
    this.#timer = undefined;
    if (!this.#running) return;
    const due = Math.floor(((this.clock.now() - this.originMs) * this.fps) / 1000) + 1;
    while (this.#running && this.#next < due) this.onFrame(this.#next++);
    if (!this.#running) return;
    const nextAt = this.originMs + (this.#next * 1000) / this.fps;
    this.#timer = this.clock.setTimeout(() => this.#wake(), Math.max(0, Math.ceil(nextAt - this.clock.now())));
  }
}
