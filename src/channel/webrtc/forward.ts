import type { RtcpSrPacket, RtpPacket } from 'werift';
import type { MediaKind } from '../membership/index.ts';
import { H264ParameterSets, h264SpsSize, vp8KeyframeSize, type H264ParameterSetPair, type VideoSize } from '../../rtp-payload/index.ts';
import { fmtpParam, type TrackCodec } from './sdp.ts';
import { seqAfter } from './gate.ts';
import { GopCache } from './gop-cache.ts';
import type { KeyframeRequestType } from './traffic.ts';

/**
 * Receives every RTP packet of a published track; must not mutate it (it is shared by all sinks). `behind`: the
 * packet came after a later one of its stream (a NACK repair, a reordered packet): it fills a hole for a subscriber
 * already receiving, and must start no subscriber's stream, whose packets after it went by before it was there.
 */
export type RtpSink = (packet: RtpPacket, behind: boolean) => void;

/** Receives the publisher's RTCP sender reports of a published track (shared by all sinks, too). */
export type SenderReportSink = (report: RtcpSrPacket) => void;

/** A published track that subscribers attach to. */
export interface ForwardSource {
  readonly kind: MediaKind;
  readonly codec: TrackCodec;
  addSink(sink: RtpSink): () => void;
  /**
   * The packets since the latest keyframe, oldest first, when the publisher cannot be asked for one (`GopCache`);
   * empty otherwise. The last is the latest packet the sinks got.
   */
  gop(): readonly RtpPacket[];
  /** The publisher's sender reports of this track, as they arrive (docs/channel.md, "Sender reports"). */
  addSenderReportSink(sink: SenderReportSink): () => void;
  /** Asks the publisher for a keyframe (rate-limited); `fir` when the asker sent a FIR. */
  requestKeyframe(type?: KeyframeRequestType): void;
  /** H.264: the publisher's latest SPS and PPS (from its packets or its offer); undefined otherwise. */
  parameterSets(): H264ParameterSetPair | undefined;
  /** Audio: the RFC 6464 level byte a packet carries, when the publisher sends it (rtp-payload/audio-level.ts). */
  audioLevelOf?(packet: RtpPacket): number | undefined;
}

/**
 * Fan-out of one incoming track. Keyframe requests become PLIs (or FIRs) to the publisher's SSRC, coalesced to one
 * per `minPliIntervalMs` (300 ms): those within it (`onLimited` counts them) become one request, sent with the first
 * packet after it. A request made before the first packet (a viewer that connects before the publisher's media
 * reaches the SFU) is kept and sent with that packet's SSRC, so every join asks the publisher exactly once even
 * when its encoder's own keyframe would open the viewer first (docs/channel.md, "Clean starts"). An H.264 track
 * also remembers the publisher's latest parameter sets for viewers that start after they went by. A video track whose
 * publisher did not negotiate PLI or FIR (an ingest: its source cannot be asked) is sent no keyframe requests and
 * keeps its current GOP instead (`GopCache`), for subscribers to start from.
 */
export class TrackFanout implements ForwardSource {
  readonly #sinks = new Set<RtpSink>();
  readonly #reportSinks = new Set<SenderReportSink>();
  #ssrc: number | undefined;
  /** The highest sequence number of stream `#ssrc` so far. */
  #highestSeq: number | undefined;
  /** RTP received on this track so far (header and payload bytes): the console's bitrate sparkline. */
  packets = 0;
  bytes = 0;
  #pendingPli: KeyframeRequestType | undefined;
  #lastPli = -Infinity;
  readonly #h264: H264ParameterSets | undefined;
  readonly #gop: GopCache<RtpPacket> | undefined;
  /** VP8: the size its latest keyframe announced. */
  #vp8Size: VideoSize | undefined;
  #spsSize: { readonly sps: Buffer; readonly size: VideoSize | undefined } | undefined;
  /** The id the publisher's answer gave the audio level extension (audio tracks; set once negotiated). */
  audioLevelExtensionId: number | undefined;

  constructor(
    readonly kind: MediaKind,
    readonly codec: TrackCodec,
    private readonly sendKeyframeRequest: (mediaSsrc: number, type: KeyframeRequestType) => void,
    private readonly now: () => number,
    private readonly minPliIntervalMs = 300,
    private readonly onLimited: (type: KeyframeRequestType) => void = () => undefined,
    /** Whether the publisher negotiated PLI or FIR for this track (`answersKeyframeRequests` of its offer). */
    readonly answersKeyframeRequests = true,
  ) {
    this.#h264 = codec.mimeType === 'video/h264' ? new H264ParameterSets(fmtpParam(codec.fmtp, 'sprop-parameter-sets')) : undefined;
    if (kind === 'video' && !answersKeyframeRequests) this.#gop = new GopCache(codec.mimeType.split('/')[1]!);
  }

  audioLevelOf(packet: RtpPacket): number | undefined {
    const id = this.audioLevelExtensionId;
    return id === undefined ? undefined : packet.header.extensions.find((e) => e.id === id)?.payload[0];
  }

  addSink(sink: RtpSink): () => void {
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  addSenderReportSink(sink: SenderReportSink): () => void {
    this.#reportSinks.add(sink);
    return () => this.#reportSinks.delete(sink);
  }

  /** A sender report of the publisher's stream of this track. */
  pushSenderReport(report: RtcpSrPacket): void {
    for (const s of this.#reportSinks) s(report);
  }

  push(packet: RtpPacket): void {
    const { ssrc, sequenceNumber: seq } = packet.header;
    const behind = ssrc === this.#ssrc && this.#highestSeq !== undefined && seqAfter(this.#highestSeq, seq);
    if (!behind) this.#highestSeq = seq;
    this.#ssrc = ssrc;
    this.packets++;
    this.bytes += packet.serializeSize;
    // A request held back (before the first packet, or within the interval of the last one) goes with the first
    // packet once it may.
    if (this.#pendingPli && this.now() - this.#lastPli >= this.minPliIntervalMs) this.#sendKeyframeRequest(this.#pendingPli);
    // Before the sinks: a viewer starting at this packet's IDR needs the parameter sets sent just before it.
    this.#h264?.observe(packet.payload);
    if (this.codec.mimeType === 'video/vp8') this.#vp8Size = vp8KeyframeSize(packet.payload) ?? this.#vp8Size;
    this.#gop?.push(packet);
    for (const s of this.#sinks) s(packet, behind);
  }

  gop(): readonly RtpPacket[] {
    return this.#gop?.packets() ?? [];
  }

  /** The picture size of a video track as its stream last announced it (VP8 keyframe, H.264 SPS), once known. */
  pictureSize(): VideoSize | undefined {
    if (this.#vp8Size) return this.#vp8Size;
    const sps = this.#h264?.latest()?.sps;
    if (!sps) return undefined;
    if (this.#spsSize?.sps !== sps) this.#spsSize = { sps, size: h264SpsSize(sps) };
    return this.#spsSize.size;
  }

  /** The publisher's stream on this track (its latest SSRC), once a packet came. */
  get ssrc(): number | undefined {
    return this.#ssrc;
  }

  parameterSets(): H264ParameterSetPair | undefined {
    return this.#h264?.latest();
  }

  requestKeyframe(type: KeyframeRequestType = 'pli'): void {
    if (this.kind !== 'video' || !this.answersKeyframeRequests) return;
    if (this.#ssrc === undefined) {
      this.#holdKeyframeRequest(type);
      return;
    }
    if (this.now() - this.#lastPli < this.minPliIntervalMs) {
      // Held, not dropped: a request for a loss just after a keyframe was asked for (that keyframe's own packet
      // given up, say) would otherwise leave every viewer frozen until something else asks.
      this.onLimited(type);
      this.#holdKeyframeRequest(type);
      return;
    }
    this.#sendKeyframeRequest(type);
  }

  /** One held request for all those held back; a FIR if any of them was one. */
  #holdKeyframeRequest(type: KeyframeRequestType): void {
    if (this.#pendingPli !== 'fir') this.#pendingPli = type;
  }

  #sendKeyframeRequest(type: KeyframeRequestType): void {
    if (this.#ssrc === undefined) return;
    this.#pendingPli = undefined;
    this.#lastPli = this.now();
    this.sendKeyframeRequest(this.#ssrc, type);
  }
}
