/**
 * The mix's loss repair (issue 27): each user's track goes through the recorder's one jitter buffer and repair
 * (src/media/jitter) before its decoder, with the hold taken out of the mix's latency window rather than added to it:
 * at most the window less the batch margin its decoders need (docs/recording-mix.md, "Batches"), so a packet held
 * for a retransmission still reaches the composite in time. Video frames after an unrepaired loss are dropped until
 * a keyframe (no corrupt picture in the composite); lost Opus packets are concealed.
 */
import { systemClock } from '../../../clock/index.ts';
import { DEFAULT_JITTER_BOUNDS, type JitterBounds, RepairedFeed } from '../../jitter/index.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import { DEFAULT_HOLD_MARGIN_MS } from './batch-hold.ts';

/** The jitter buffer's bounds inside a mix window of `latencyMs`. */
export function mixJitterBounds(latencyMs: number): JitterBounds {
  const maxMs = Math.max(DEFAULT_JITTER_BOUNDS.minMs, Math.min(DEFAULT_JITTER_BOUNDS.maxMs, latencyMs - DEFAULT_HOLD_MARGIN_MS));
  return { ...DEFAULT_JITTER_BOUNDS, maxMs };
}

/** One user's repaired inputs, by kind, created with the first packet of each. */
export class RepairedInputs {
  readonly #feeds = new Map<string, RepairedFeed>();

  constructor(
    private readonly latencyMs: number,
    private readonly requestKeyframe: () => void,
  ) {}

  push(kind: 'audio' | 'video', track: RtpTrackDescription, packet: Buffer, send: (p: Buffer) => void): void {
    let feed = this.#feeds.get(kind);
    if (!feed) {
      feed = new RepairedFeed({
        codec: track.codec,
        clockRate: track.clockRate,
        // Media time is real time, whatever clock the mix runs on.
        clock: systemClock,
        bounds: mixJitterBounds(this.latencyMs),
        requestKeyframe: kind === 'video' ? this.requestKeyframe : undefined,
        send,
      });
      this.#feeds.set(kind, feed);
    }
    feed.push(packet);
  }

  close(): void {
    for (const f of this.#feeds.values()) f.close();
    this.#feeds.clear();
  }
}
