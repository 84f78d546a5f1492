/**
 * When a decoder's queued input is written (docs/recording-mix.md, "Batches"). Every write wakes an ffmpeg child,
 * and a wake-up costs it far more than decoding a 20 ms Opus packet, so input is held and written in batches. The
 * mix shows media `latencyMs` after its sender time, so there is room to wait: a batch is written at the last
 * chance (the pipeline's next frame) that still leaves the child its recent decoding delay plus a margin before
 * the oldest queued item is due, and never later than `maxHoldMs` after that item arrived. A loaded machine, where
 * the child answers late, shrinks the batches on its own, down to one write per chance. Pure: time comes in as
 * arguments.
 */

export interface BatchHoldOptions {
  /** The mix's jitter window: an item is due this long after its sender time. */
  readonly latencyMs: number;
  /** The longest an item waits in the queue. */
  readonly maxHoldMs?: number;
  /** Time kept in hand beyond the child's recent decoding delay. */
  readonly marginMs?: number;
}

/** Longer batches save little more (a write every 150 ms costs the child about half of one every 20 ms). */
export const DEFAULT_MAX_HOLD_MS = 150;
export const DEFAULT_HOLD_MARGIN_MS = 120;
/** The recent decoding delay forgets half of a spike every this long. */
const DELAY_HALF_LIFE_MS = 2000;

export class BatchHold {
  readonly #latencyMs: number;
  readonly #maxHoldMs: number;
  readonly #marginMs: number;
  /** Arrival and due time of the oldest item not written yet. */
  #oldest: { readonly arrivalMs: number; readonly dueMs: number } | undefined;
  #delayMs = 0;
  #delayAtMs = 0;

  constructor(options: BatchHoldOptions) {
    this.#latencyMs = options.latencyMs;
    this.#maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
    this.#marginMs = options.marginMs ?? DEFAULT_HOLD_MARGIN_MS;
  }

  /** An item was queued: it arrived at `arrivalMs` and was sent at `senderTimeMs` (its arrival when unknown). */
  queued(arrivalMs: number, senderTimeMs: number = arrivalMs): void {
    const dueMs = Math.min(senderTimeMs, arrivalMs) + this.#latencyMs;
    if (!this.#oldest) this.#oldest = { arrivalMs, dueMs };
    else if (dueMs < this.#oldest.dueMs) this.#oldest = { arrivalMs: this.#oldest.arrivalMs, dueMs };
  }

  /** Whether to write now, given the next chance to write comes at `nextChanceMs`. */
  shouldWrite(nowMs: number, nextChanceMs: number): boolean {
    const oldest = this.#oldest;
    if (!oldest) return false;
    if (nextChanceMs - oldest.arrivalMs > this.#maxHoldMs) return true;
    return nextChanceMs + this.recentDelayMs(nowMs) + this.#marginMs > oldest.dueMs;
  }

  /** The queue was written. */
  written(): void {
    this.#oldest = undefined;
  }

  /** The child gave out what was written `delayMs` ago. */
  decoded(delayMs: number, nowMs: number): void {
    const recent = this.recentDelayMs(nowMs);
    this.#delayMs = Math.max(delayMs, recent);
    this.#delayAtMs = nowMs;
  }

  /** The child's recent decoding delay: its latest spike, halved every DELAY_HALF_LIFE_MS since. */
  recentDelayMs(nowMs: number): number {
    const age = Math.max(0, nowMs - this.#delayAtMs);
    return this.#delayMs * 0.5 ** (age / DELAY_HALF_LIFE_MS);
  }
}
