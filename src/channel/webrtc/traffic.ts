import type { MediaKind } from '../membership/index.ts';
import type { LayerChoice } from './layer-adaptation.ts';

/** `in`: arriving at the SFU (from publishers; feedback from subscribers); `out`: leaving it. */
export type TrafficDirection = 'in' | 'out';

/** The two keyframe request messages (RFC 4585 PLI, RFC 5104 FIR). */
export type KeyframeRequestType = 'pli' | 'fir';

export interface PacketCount {
  packets: number;
  bytes: number;
}

/**
 * The SFU's running totals, plain numbers bumped on the packet path and read by /metrics at scrape time:
 * RTP by direction and kind (bytes as on the wire: header and payload, before SRTP), and the feedback and repair
 * traffic (docs/channel.md, "Loss on each hop"; docs/metrics.md). Feedback `in` comes from subscribers, `out`
 * goes to publishers.
 */
export class ChannelTraffic {
  readonly rtp: Record<TrafficDirection, Record<MediaKind, PacketCount>> = {
    in: { audio: { packets: 0, bytes: 0 }, video: { packets: 0, bytes: 0 } },
    out: { audio: { packets: 0, bytes: 0 }, video: { packets: 0, bytes: 0 } },
  };
  /** NACK messages: in from subscribers, out to publishers. */
  readonly nack: Record<TrafficDirection, number> = { in: 0, out: 0 };
  /** Subscribers' NACK messages answered with at least one retransmission. */
  nackAnswered = 0;
  /** Packets resent to subscribers from the retransmission cache (plain or RTX). */
  retransmissions = 0;
  /** RTX packets (RFC 4588): in from publishers (repairs), out to subscribers (of `retransmissions`). */
  readonly rtx: Record<TrafficDirection, number> = { in: 0, out: 0 };
  /** Publisher packets NACKed and given up (no repair could arrive in time). */
  unrepaired = 0;
  /** Publisher packets that had already arrived (repeated repairs, RTX probes, duplication): not forwarded. */
  duplicates = 0;
  readonly pli: Record<TrafficDirection, number> = { in: 0, out: 0 };
  readonly fir: Record<TrafficDirection, number> = { in: 0, out: 0 };
  /** Keyframe requests not sent to a publisher because one went out less than the track's interval ago. */
  readonly keyframeLimited: Record<KeyframeRequestType, number> = { pli: 0, fir: 0 };
  /** Keyframe requests the SFU made itself after an unrepaired video loss (before the rate limit). */
  keyframeOnLoss = 0;
  /** Viewers of simulcast publishers moved to the low layer (`down`) or back (`up`) by their reported loss. */
  readonly layerSwitches: Record<'down' | 'up', number> = { down: 0, up: 0 };
  /** In-process taps (mix recorders) moved to a simulcast publisher's layer by the size they draw it at. */
  readonly tapLayerMoves: Record<LayerChoice, number> = { high: 0, low: 0 };
  /** WHEP viewers (a mix recorder on another node) moved the same way, by the size they told (`POST …/fit`). */
  readonly viewerFitMoves: Record<LayerChoice, number> = { high: 0, low: 0 };
  /** Transport-wide congestion control feedback packets sent to publishers. */
  twccOut = 0;
  /** Transport-wide congestion control feedback packets from viewers (their delay trend, delay-trend.ts). */
  twccIn = 0;
  /** Viewers moved to the low layer (or back from trying the high one) because their queue was growing. */
  delayMoves = 0;

  countRtp(direction: TrafficDirection, kind: MediaKind, bytes: number): void {
    const c = this.rtp[direction][kind];
    c.packets++;
    c.bytes += bytes;
  }
}
