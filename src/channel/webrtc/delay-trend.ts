/**
 * Whether the path to a viewer is filling up, from the viewer's transport-cc feedback (docs/channel.md, "Viewers
 * adapt"): the delay-based half of Google Congestion Control (draft-ietf-rmcat-gcc-02 §5, with libwebrtc's trendline
 * filter). A queue that grows in front of a narrow link delays each packet a little more than the one before, long
 * before it overflows and the loss shows in a receiver report. Pure: the caller records what it sent (transport-wide
 * sequence number, send time, size) and passes each feedback's arrival times.
 *
 * - Packets sent within `burstMs` of a group's first form one group (a frame's packets leave together).
 * - For each group against the one before: the delay variation d = (arrival delta) − (send delta). Its running sum
 *   is smoothed (`smoothing`) and a least-squares line is fitted over the last `windowGroups` points (time of
 *   arrival, smoothed delay): the slope is how fast the queue grows (ms per ms).
 * - The trend `slope × min(groups, 60) × gain` is compared with an adaptive threshold γ (from `initialThresholdMs`,
 *   moved towards |trend| by k_up/k_down per ms, within `thresholdBoundsMs`): above it for at least
 *   `overuseTimeMs` and not falling is `overuse`; below −γ `underuse`; else `normal`.
 */

export type DelaySignal = 'normal' | 'overuse' | 'underuse';

export interface DelayTrendRules {
  readonly burstMs: number;
  readonly smoothing: number;
  readonly windowGroups: number;
  readonly gain: number;
  readonly initialThresholdMs: number;
  readonly thresholdBoundsMs: readonly [number, number];
  readonly kUp: number;
  readonly kDown: number;
  readonly overuseTimeMs: number;
}

/** libwebrtc's values (trendline_estimator.cc). */
export const DELAY_TREND_RULES: DelayTrendRules = {
  burstMs: 5,
  smoothing: 0.9,
  windowGroups: 20,
  gain: 4,
  initialThresholdMs: 12.5,
  thresholdBoundsMs: [6, 600],
  kUp: 0.0087,
  kDown: 0.039,
  overuseTimeMs: 10,
};

/** Sent packets remembered (by 16-bit sequence number): feedback comes within a few hundred ms. */
const SENT_SLOTS = 4096;
/** How far |trend| may exceed γ and still move it (a spike of one group does not raise the threshold). */
const MAX_ADAPT_EXCESS_MS = 15;
const MAX_ADAPT_STEP_MS = 100;
/** Points before the slope is trusted. */
const MIN_POINTS = 2;

interface Group {
  firstSendMs: number;
  lastSendMs: number;
  lastArrivalMs: number;
}

export class DelayTrend {
  readonly #sentSeq = new Int32Array(SENT_SLOTS).fill(-1);
  readonly #sentAt = new Float64Array(SENT_SLOTS);
  #group: Group | undefined;
  #previous: Group | undefined;
  #firstArrivalMs: number | undefined;
  #accumulatedMs = 0;
  #smoothedMs = 0;
  #groups = 0;
  readonly #points: { x: number; y: number }[] = [];
  #thresholdMs: number;
  #lastThresholdUpdateMs: number | undefined;
  #overuseMs = 0;
  #overuseCount = 0;
  #previousTrend = 0;
  #signal: DelaySignal = 'normal';
  /** Arrival time (ms) of the group that turned the signal to overuse, while it stays so. */
  #overuseSinceMs: number | undefined;
  #lastArrivalMs = 0;
  /** The last trend and threshold (diagnostics, metrics). */
  trend = 0;

  constructor(private readonly rules: DelayTrendRules = DELAY_TREND_RULES) {
    this.#thresholdMs = rules.initialThresholdMs;
  }

  get signal(): DelaySignal {
    return this.#signal;
  }

  /**
   * How long (ms of arrival time) the signal has said overuse without a break: 0 when it does not. A stall of the
   * viewer's own process looks like a queue for as long as it lasts, then like a queue draining; a queue that keeps
   * growing keeps saying so.
   */
  get overuseForMs(): number {
    return this.#overuseSinceMs === undefined ? 0 : this.#lastArrivalMs - this.#overuseSinceMs;
  }

  get thresholdMs(): number {
    return this.#thresholdMs;
  }

  /** A packet numbered `seq` (16-bit transport-wide) left at `atMs`. */
  sent(seq: number, atMs: number): void {
    const slot = seq % SENT_SLOTS;
    this.#sentSeq[slot] = seq;
    this.#sentAt[slot] = atMs;
  }

  /** One feedback's packets, in sequence order (`arrivalUs` on the viewer's clock). Returns the signal after it. */
  feedback(results: readonly { readonly seq: number; readonly arrivalUs: number | undefined }[]): DelaySignal {
    for (const r of results) {
      if (r.arrivalUs === undefined) continue;
      const slot = r.seq % SENT_SLOTS;
      if (this.#sentSeq[slot] !== r.seq) continue;
      this.#packet(this.#sentAt[slot]!, r.arrivalUs / 1000);
    }
    return this.#signal;
  }

  #packet(sendMs: number, arrivalMs: number): void {
    const g = this.#group;
    if (!g) {
      this.#group = { firstSendMs: sendMs, lastSendMs: sendMs, lastArrivalMs: arrivalMs };
      return;
    }
    // Reordered: earlier than what the group already holds. Its place in the queue says nothing new.
    if (sendMs < g.lastSendMs) return;
    if (sendMs - g.firstSendMs <= this.rules.burstMs) {
      g.lastSendMs = sendMs;
      g.lastArrivalMs = Math.max(g.lastArrivalMs, arrivalMs);
      return;
    }
    const prev = this.#previous;
    if (prev) this.#delta(g.lastSendMs - prev.lastSendMs, g.lastArrivalMs - prev.lastArrivalMs, g.lastArrivalMs);
    this.#previous = g;
    this.#group = { firstSendMs: sendMs, lastSendMs: sendMs, lastArrivalMs: arrivalMs };
  }

  #delta(sendDeltaMs: number, arrivalDeltaMs: number, arrivalMs: number): void {
    const r = this.rules;
    this.#groups++;
    this.#firstArrivalMs ??= arrivalMs;
    this.#accumulatedMs += arrivalDeltaMs - sendDeltaMs;
    this.#smoothedMs = r.smoothing * this.#smoothedMs + (1 - r.smoothing) * this.#accumulatedMs;
    this.#points.push({ x: arrivalMs - this.#firstArrivalMs, y: this.#smoothedMs });
    if (this.#points.length > r.windowGroups) this.#points.shift();
    if (this.#points.length < MIN_POINTS) return;
    const slope = leastSquaresSlope(this.#points);
    this.trend = slope * Math.min(this.#groups, 60) * r.gain;
    this.#detect(this.trend, sendDeltaMs, arrivalMs);
  }

  #detect(trend: number, sendDeltaMs: number, nowMs: number): void {
    const r = this.rules;
    this.#lastArrivalMs = nowMs;
    if (trend > this.#thresholdMs) {
      this.#overuseMs += sendDeltaMs;
      this.#overuseCount++;
      if (this.#overuseMs > r.overuseTimeMs && this.#overuseCount > 1 && trend >= this.#previousTrend) {
        this.#overuseMs = 0;
        this.#overuseCount = 0;
        if (this.#signal !== 'overuse') this.#overuseSinceMs = nowMs;
        this.#signal = 'overuse';
      }
    } else if (trend < -this.#thresholdMs) {
      this.#overuseMs = 0;
      this.#overuseCount = 0;
      this.#signal = 'underuse';
      this.#overuseSinceMs = undefined;
    } else {
      this.#overuseMs = 0;
      this.#overuseCount = 0;
      this.#signal = 'normal';
      this.#overuseSinceMs = undefined;
    }
    this.#previousTrend = trend;
    this.#adaptThreshold(trend, nowMs);
  }

  #adaptThreshold(trend: number, nowMs: number): void {
    const r = this.rules;
    const last = this.#lastThresholdUpdateMs ?? nowMs;
    this.#lastThresholdUpdateMs = nowMs;
    const excess = Math.abs(trend) - this.#thresholdMs;
    if (excess > MAX_ADAPT_EXCESS_MS) return;
    const k = Math.abs(trend) < this.#thresholdMs ? r.kDown : r.kUp;
    const step = Math.min(nowMs - last, MAX_ADAPT_STEP_MS);
    this.#thresholdMs = Math.min(Math.max(this.#thresholdMs + k * excess * step, r.thresholdBoundsMs[0]), r.thresholdBoundsMs[1]);
  }
}

function leastSquaresSlope(points: readonly { x: number; y: number }[]): number {
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += p.x;
    sy += p.y;
  }
  const mx = sx / points.length;
  const my = sy / points.length;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
