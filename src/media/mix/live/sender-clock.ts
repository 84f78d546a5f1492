/**
 * Sender clocks for mix audio alignment (docs/recording-mix.md, "Live pipeline"): an RTP timestamp becomes the
 * sender's wall-clock time through the latest RTCP sender report (NTP time ↔ RTP timestamp of the same instant).
 * Before the first report, packets' arrival stands in for their sending time (the soonest arrival relative to the
 * timestamps), and again for good once the reports are found to put the sender too far behind us
 * (LateSenderClock). Pure, no I/O.
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

interface ClockAnchor {
  readonly rtp: number;
  readonly wallMs: number;
  readonly fromReport: boolean;
}

/** Maps one source's RTP timestamps to wall-clock milliseconds. */
export class SenderClock {
  #anchor: ClockAnchor | undefined;
  /**
   * The anchor by arrival: the first packet, moved to any later packet that arrives sooner than it predicts (the
   * first one had been held up: a burst at the start of a link, a busy process). The anchor before any report,
   * and again once reports are not trusted.
   */
  #arrival: ClockAnchor | undefined;
  #trustReports = true;

  constructor(readonly clockRate: number) {
    if (!(clockRate > 0)) throw new RangeError(`clock rate must be positive, got ${clockRate}`);
  }

  /** True once a sender report has anchored the clock (and reports are trusted). */
  get synchronised(): boolean {
    return this.#anchor?.fromReport ?? false;
  }

  /** A packet arrived at `arrivalMs`: the arrival anchor, used while no trusted sender report has come. */
  packetArrived(rtpTimestamp: number, arrivalMs: number): void {
    const a = this.#arrival;
    if (!a || arrivalMs < a.wallMs + (rtpTimestampDelta(rtpTimestamp >>> 0, a.rtp) * 1000) / this.clockRate) {
      this.#arrival = { rtp: rtpTimestamp >>> 0, wallMs: arrivalMs, fromReport: false };
      if (!this.#anchor?.fromReport) this.#anchor = this.#arrival;
    }
  }

  senderReport(report: SenderReport): void {
    if (!this.#trustReports) return;
    this.#anchor = { rtp: report.rtpTimestamp >>> 0, wallMs: ntpToUnixMs(report.ntpTimestamp), fromReport: true };
  }

  /**
   * From now on this source's reports are ignored and arrival stands for its sending time, as before the first
   * report (a sender whose clock is too far from ours, see LateSenderClock).
   */
  distrustReports(): void {
    this.#trustReports = false;
    this.#anchor = this.#arrival;
  }

  /** The sender's wall-clock time of `rtpTimestamp`, or undefined before any packet or report. */
  wallTimeOf(rtpTimestamp: number): number | undefined {
    const a = this.#anchor;
    if (!a) return undefined;
    return a.wallMs + (rtpTimestampDelta(rtpTimestamp >>> 0, a.rtp) * 1000) / this.clockRate;
  }
}

/**
 * Tells a sender clock that runs behind ours from a stall (docs/recording-mix.md, "Sender clocks"). Fed with the
 * lag of each audio packet (its arrival − its sender time through the reports), it answers true once every
 * packet for `holdMs` arrived more than `thresholdMs` behind its sender time (the mix's latency window: such audio
 * is dropped as late) while the lag stayed within `spreadMs`: a clock offset keeps the lag steady, whereas a
 * stalled process or network delivers a backlog at once, whose lags spread over the stall.
 */
export class LateSenderClock {
  #since: number | undefined;
  #min = Infinity;
  #max = -Infinity;

  constructor(
    private readonly thresholdMs: number,
    private readonly holdMs = 3000,
    private readonly spreadMs = 250,
  ) {}

  observe(arrivalMs: number, lagMs: number): boolean {
    if (lagMs <= this.thresholdMs) {
      this.#since = undefined;
      return false;
    }
    if (this.#since === undefined || Math.max(this.#max, lagMs) - Math.min(this.#min, lagMs) > this.spreadMs) {
      this.#since = arrivalMs;
      this.#min = this.#max = lagMs;
      return false;
    }
    this.#min = Math.min(this.#min, lagMs);
    this.#max = Math.max(this.#max, lagMs);
    return arrivalMs - this.#since >= this.holdMs;
  }
}
