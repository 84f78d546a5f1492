/**
 * Sender clocks for mix audio alignment (docs/recording-mix.md, "Live pipeline"): an RTP timestamp becomes the
 * sender's wall-clock time through the latest RTCP sender report (NTP time ↔ RTP timestamp of the same instant).
 * Before the first report, the first packet's arrival time stands in for its sending time. Pure, no I/O.
 */
import type { RtcpSrPacket } from 'werift';
import { ntpToUnixMs } from '../../../clock/index.ts';

export { ntpToUnixMs, unixMsToNtp } from '../../../clock/index.ts';

/** The two clocks of one sender report: what the session takes from a werift `RtcpSrPacket`. */
export interface SenderReport {
  readonly ssrc: number;
  /** 64-bit NTP timestamp (seconds since 1900 in the high 32 bits, fraction in the low 32). */
  readonly ntpTimestamp: bigint;
  readonly rtpTimestamp: number;
}

export function senderReportOf(packet: RtcpSrPacket): SenderReport {
  return { ssrc: packet.ssrc, ntpTimestamp: packet.senderInfo.ntpTimestamp, rtpTimestamp: packet.senderInfo.rtpTimestamp };
}

/** `a − b` for 32-bit RTP timestamps, taking the shorter way round the wrap. */
export function rtpTimestampDelta(a: number, b: number): number {
  return ((((a - b) >>> 0) + 0x80000000) >>> 0) - 0x80000000;
}

/** Maps one source's RTP timestamps to wall-clock milliseconds. */
export class SenderClock {
  #anchor: { readonly rtp: number; readonly wallMs: number; readonly fromReport: boolean } | undefined;

  constructor(readonly clockRate: number) {
    if (!(clockRate > 0)) throw new RangeError(`clock rate must be positive, got ${clockRate}`);
  }

  /** True once a sender report has anchored the clock. */
  get synchronised(): boolean {
    return this.#anchor?.fromReport ?? false;
  }

  /** A packet arrived at `arrivalMs`: anchors the clock on it while no sender report has come. */
  packetArrived(rtpTimestamp: number, arrivalMs: number): void {
    this.#anchor ??= { rtp: rtpTimestamp >>> 0, wallMs: arrivalMs, fromReport: false };
  }

  senderReport(report: SenderReport): void {
    this.#anchor = { rtp: report.rtpTimestamp >>> 0, wallMs: ntpToUnixMs(report.ntpTimestamp), fromReport: true };
  }

  /** The sender's wall-clock time of `rtpTimestamp`, or undefined before any packet or report. */
  wallTimeOf(rtpTimestamp: number): number | undefined {
    const a = this.#anchor;
    if (!a) return undefined;
    return a.wallMs + (rtpTimestampDelta(rtpTimestamp >>> 0, a.rtp) * 1000) / this.clockRate;
  }
}
