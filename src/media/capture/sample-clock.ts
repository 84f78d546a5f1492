/**
 * When was a sound card sample captured? The capture's null sink renders at exactly its sample rate on the
 * system clock, so sample i of its monitor was captured at `anchor + i / rate`; only the anchor is unknown. Each
 * batch of samples that arrives at wall time `t` ends with a sample captured at or before `t`, so
 * `t - samplesSoFar / rate` is an upper bound of the anchor that is tight whenever a batch arrives promptly; the
 * smallest bound seen is the estimate. Late batches (a busy reader, a busy event loop) only give larger bounds and
 * change nothing, which is why this needs no latency figure from the sound server (docs/recording-web.md,
 * "Sound timestamps"). Pure: times are passed in.
 */

/** Over this long, every bound above the anchor by more than LOSS_MS means samples were lost, not late. */
export const LOSS_WINDOW_MS = 5000;
/** Smaller steps are jitter of the reader; a lost stretch this long or longer is filled with silence. */
export const LOSS_MS = 100;
/** Sound-server position reports the play delay is the median of (pacat sends one every 50 ms). */
export const PLAY_REPORTS = 40;
/** A play delay beyond this is a report gone wrong, not a sink's latency. */
export const MAX_PLAY_DELAY_MS = 250;

export class SampleClock {
  /** Timeline position after the last batch: samples received plus silence inserted for lost ones. */
  private position = 0;
  private anchor = Number.POSITIVE_INFINITY;
  /** Bounds of the current loss window (its start time and its smallest bound). */
  private windowStartMs: number | undefined;
  private windowMin = Number.POSITIVE_INFINITY;

  constructor(readonly sampleRate: number) {
    if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`sampleRate must be a positive integer, got ${sampleRate}`);
  }

  /** Samples on the timeline so far. */
  get samples(): number {
    return this.position;
  }

  /** UTC ms of sample 0, or undefined before the first batch. */
  get anchorMs(): number | undefined {
    return Number.isFinite(this.anchor) ? this.anchor : undefined;
  }

  /**
   * A batch of `count` samples arrived at `nowMs`. Returns how many samples of silence go on the timeline before
   * it: non-zero only when the batches of a whole loss window all came at least LOSS_MS later than the anchor
   * says, i.e. samples went missing between the sound card and us (the timeline must not close up over them).
   */
  arrived(count: number, nowMs: number): number {
    let silence = 0;
    const bound = nowMs - ((this.position + count) * 1000) / this.sampleRate;
    if (this.windowStartMs === undefined) this.windowStartMs = nowMs;
    this.windowMin = Math.min(this.windowMin, bound);
    if (nowMs - this.windowStartMs >= LOSS_WINDOW_MS) {
      const behind = this.windowMin - this.anchor;
      if (behind >= LOSS_MS) silence = Math.round((behind * this.sampleRate) / 1000);
      this.windowStartMs = nowMs;
      this.windowMin = Number.POSITIVE_INFINITY;
    }
    this.position += silence + count;
    this.anchor = Math.min(this.anchor, nowMs - (this.position * 1000) / this.sampleRate);
    return silence;
  }

  /**
   * The sound server said, at or before `nowMs`, that the stream's sample at `streamTimeMs` (its own count, from
   * the stream's first sample) is the one playing now. A null sink renders ahead of that by up to its latency and
   * the monitor passes samples on as they are rendered, so a sample plays about the sink's latency (≈ 12 ms here)
   * after it arrives; we stamp samples at the moment they play, as the server says. Its reports are not trusted
   * alone: in the first second of a stream we saw them 1 s off, so the delay is the median over the latest
   * PLAY_REPORTS reports, taken only once that many came, and kept within [0, MAX_PLAY_DELAY_MS].
   */
  played(streamTimeMs: number, nowMs: number): void {
    this.plays.push(nowMs - streamTimeMs);
    if (this.plays.length > PLAY_REPORTS) this.plays.shift();
  }
  private readonly plays: number[] = [];

  /** How much later a sample plays than it arrives (ms): 0 until the server has said enough. */
  get playDelayMs(): number {
    if (this.plays.length < PLAY_REPORTS || !Number.isFinite(this.anchor)) return 0;
    const sorted = [...this.plays].sort((a, b) => a - b);
    const d = sorted[Math.floor(sorted.length / 2)]! - this.anchor;
    return Math.min(MAX_PLAY_DELAY_MS, Math.max(0, d));
  }

  /** UTC ms at which timeline sample `index` plays (was captured). */
  timeOf(index: number): number {
    if (!Number.isFinite(this.anchor)) throw new Error('no samples yet');
    return this.anchor + this.playDelayMs + (index * 1000) / this.sampleRate;
  }

  /** The first timeline sample that plays at or after `utcMs`. */
  indexAt(utcMs: number): number {
    if (!Number.isFinite(this.anchor)) throw new Error('no samples yet');
    return Math.ceil(((utcMs - this.anchor - this.playDelayMs) * this.sampleRate) / 1000 - 1e-6);
  }
}
