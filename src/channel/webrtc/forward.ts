import type { RtpPacket } from 'werift';
import type { MediaKind } from '../membership/index.ts';
import type { TrackCodec } from './sdp.ts';

/** Receives every RTP packet of a published track; must not mutate it (it is shared by all sinks). */
export type RtpSink = (packet: RtpPacket) => void;

/** A published track that subscribers attach to. */
export interface ForwardSource {
  readonly kind: MediaKind;
  readonly codec: TrackCodec;
  addSink(sink: RtpSink): () => void;
  /** Asks the publisher for a keyframe (rate-limited). */
  requestKeyframe(): void;
}

/**
 * Fan-out of one incoming track. Keyframe requests become PLIs to the publisher's SSRC, coalesced to one per
 * `minPliIntervalMs`. A request made before the first packet (a viewer that connects before the publisher's media
 * reaches the SFU) is kept and sent with that packet's SSRC, so every join asks the publisher exactly once even
 * when its encoder's own keyframe would open the viewer first (docs/channel.md, "Clean starts").
 */
export class TrackFanout implements ForwardSource {
  readonly #sinks = new Set<RtpSink>();
  #ssrc: number | undefined;
  #pendingPli = false;
  #lastPli = -Infinity;

  constructor(
    readonly kind: MediaKind,
    readonly codec: TrackCodec,
    private readonly sendPli: (mediaSsrc: number) => void,
    private readonly now: () => number,
    private readonly minPliIntervalMs = 300,
  ) {}

  addSink(sink: RtpSink): () => void {
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  push(packet: RtpPacket): void {
    this.#ssrc = packet.header.ssrc;
    if (this.#pendingPli) {
      this.#pendingPli = false;
      this.requestKeyframe();
    }
    for (const s of this.#sinks) s(packet);
  }

  requestKeyframe(): void {
    if (this.kind !== 'video') return;
    if (this.#ssrc === undefined) {
      this.#pendingPli = true;
      return;
    }
    const t = this.now();
    if (t - this.#lastPli < this.minPliIntervalMs) return;
    this.#lastPli = t;
    this.sendPli(this.#ssrc);
  }
}
