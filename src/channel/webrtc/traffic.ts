import type { MediaKind } from '../membership/index.ts';

/** `in`: arriving at the SFU (from publishers; feedback from subscribers); `out`: leaving it. */
export type TrafficDirection = 'in' | 'out';

export interface PacketCount {
  packets: number;
  bytes: number;
}

/**
 * The SFU's running totals, plain numbers bumped on the packet path and read by /metrics at scrape time:
 * RTP by direction and kind (bytes as on the wire: header and payload, before SRTP), and the NACK and PLI
 * feedback messages by direction (in: from subscribers, out: to publishers).
 */
export class ChannelTraffic {
  readonly rtp: Record<TrafficDirection, Record<MediaKind, PacketCount>> = {
    in: { audio: { packets: 0, bytes: 0 }, video: { packets: 0, bytes: 0 } },
    out: { audio: { packets: 0, bytes: 0 }, video: { packets: 0, bytes: 0 } },
  };
  readonly nack: Record<TrafficDirection, number> = { in: 0, out: 0 };
  readonly pli: Record<TrafficDirection, number> = { in: 0, out: 0 };

  countRtp(direction: TrafficDirection, kind: MediaKind, bytes: number): void {
    const c = this.rtp[direction][kind];
    c.packets++;
    c.bytes += bytes;
  }
}
