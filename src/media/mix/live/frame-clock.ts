/**
 * The mix's frame clock on the injected Clock (docs/recording-mix.md, "Live pipeline"): output frame n is due at
 * origin + n/fps. Each wake-up emits every frame that has fallen due, so a late wake-up (a busy event loop)
 * catches up instead of slowing the output: after t seconds exactly ⌊t·fps⌋ + 1 frames have been emitted,
 * whatever any input does. A wake-up that has spent WAKE_BUDGET_MS emitting yields to the event loop and goes on at
 * once after it, so a mix that falls behind never holds the loop for long.
 */
import { performance } from 'node:perf_hooks';
import type { Clock, TimerHandle } from '../../../clock/index.ts';

/**
 * Real time one wake-up may spend emitting frames before it yields (a work budget, not a media time: hence
 * performance.now(), not the injected clock). Without it a mix that composed slower than real time on a starved CPU
 * caught up in ever longer runs: its process's event loop stood still for 12-22 s at a time, and a publisher's
 * WebRTC peer in the same process failed its ICE consent checks (session 26, the console test under load).
 */
const WAKE_BUDGET_MS = 50;

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
    const startedMs = performance.now();
    while (this.#running && this.#next < due) {
      this.onFrame(this.#next++);
      if (performance.now() - startedMs >= WAKE_BUDGET_MS) break;
    }
    if (!this.#running) return;
    // Still behind after a yield: nextAt has passed, so the timer fires as soon as the loop has run its I/O.
    const nextAt = this.originMs + (this.#next * 1000) / this.fps;
    this.#timer = this.clock.setTimeout(() => this.#wake(), Math.max(0, Math.ceil(nextAt - this.clock.now())));
  }
}
