import type { TrackStat } from '../sfu.ts';

/** One track in the bitrate stream: its running totals and the rate since the previous sample. */
export interface TrackBitrate extends TrackStat {
  /** Bits per second over the last interval; null on a track's first sample. */
  readonly bitrateBps: number | null;
}

const trackKey = (t: Pick<TrackStat, 'cname' | 'uid' | 'kind'>): string => `${t.cname}\u0000${t.uid}\u0000${t.kind}`;

/**
 * Pure: the rates between two samples `elapsedMs` apart. A track whose byte total went down (the publisher left
 * and came back between samples) starts over with null.
 */
export function trackBitrates(previous: readonly TrackStat[], current: readonly TrackStat[], elapsedMs: number): TrackBitrate[] {
  const before = new Map(previous.map((t) => [trackKey(t), t]));
  return current.map((t) => {
    const p = before.get(trackKey(t));
    const bitrateBps = p && t.bytes >= p.bytes && elapsedMs > 0 ? Math.round(((t.bytes - p.bytes) * 8 * 1000) / elapsedMs) : null;
    return { ...t, bitrateBps };
  });
}
