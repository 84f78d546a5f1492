/**
 * Process totals of the recorder's loss repair for /metrics (docs/metrics.md), by media kind: what ended streams
 * counted plus what live ones count now, read at scrape time (the per-packet path only bumps plain numbers).
 */
import type { RepairStats } from './stream-repair.ts';

/** A stream's repair figures (the individual session's stop summary). */
export interface FeedStats extends RepairStats {
  /** Keyframe requests sent for unrepaired video loss. */
  keyframeRequests: number;
}

export type LossKind = 'audio' | 'video';

/** The figures /metrics reports, each a counter by kind. */
export const LOSS_FIGURES = ['missing', 'repaired', 'lost', 'late', 'framesDropped', 'concealed', 'fecRecovered', 'keyframeRequests'] as const;
export type LossFigure = (typeof LOSS_FIGURES)[number];

export class LossMeter {
  readonly #live = new Map<FeedStats, LossKind>();
  readonly #ended: Record<LossKind, Record<LossFigure, number>> = { audio: zero(), video: zero() };

  add(kind: LossKind, stats: FeedStats): void {
    this.#live.set(stats, kind);
  }

  ended(kind: LossKind, stats: FeedStats): void {
    if (!this.#live.delete(stats)) return;
    for (const f of LOSS_FIGURES) this.#ended[kind][f] += stats[f];
  }

  /** Totals of one figure by kind, ended and live streams together. */
  total(figure: LossFigure): Record<LossKind, number> {
    const out = { audio: this.#ended.audio[figure], video: this.#ended.video[figure] };
    for (const [s, kind] of this.#live) out[kind] += s[figure];
    return out;
  }
}

function zero(): Record<LossFigure, number> {
  return { missing: 0, repaired: 0, lost: 0, late: 0, framesDropped: 0, concealed: 0, fecRecovered: 0, keyframeRequests: 0 };
}
