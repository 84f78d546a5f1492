/**
 * The synthetic publisher's capture clock, for its RTCP sender reports. ffmpeg's own reports date each stream
 * from when its first packet left, and its video leaves about half a second after its audio, so they do not
 * describe one capture clock as a browser's do. Both lavfi inputs start at time 0 together (`-re`), so here both
 * streams' first packets stand for time 0 of one timeline, stamped with the first arrival of either. Pure: times
 * come in as arguments.
 */
import { unixMsToNtp } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import type { ClockMapping } from '../webrtc/index.ts';

const CLOCK_RATE: Record<MediaKind, number> = { audio: 48_000, video: 90_000 };
/** A report per kind at most this often (browsers send about one a second). */
const REPORT_INTERVAL_MS = 1000;

/** `a − b` for 32-bit RTP timestamps, the short way round the wrap. */
const delta = (a: number, b: number) => ((((a - b) >>> 0) + 0x80000000) >>> 0) - 0x80000000;

export class CaptureClock {
  #originMs: number | undefined;
  readonly #first = new Map<MediaKind, number>();
  readonly #lastReportMs = new Map<MediaKind, number>();

  /** `offsetMs`: how far ahead of real time the reports put the publisher's clock (tests of sender clock offsets). */
  constructor(private readonly offsetMs = 0) {}

  /** Wall time (Unix ms, on our clock) of the timeline's time 0, once a packet arrived. */
  get originMs(): number | undefined {
    return this.#originMs;
  }

  /** A packet of `kind` with `timestamp` arrived at `nowMs`: the sender report to send now, if one is due. */
  packet(kind: MediaKind, timestamp: number, nowMs: number): ClockMapping | undefined {
    this.#originMs ??= nowMs;
    if (!this.#first.has(kind)) this.#first.set(kind, timestamp);
    if (nowMs - (this.#lastReportMs.get(kind) ?? -Infinity) < REPORT_INTERVAL_MS) return undefined;
    this.#lastReportMs.set(kind, nowMs);
    const captureMs = this.#originMs + (delta(timestamp, this.#first.get(kind)!) * 1000) / CLOCK_RATE[kind];
    return { ntpTimestamp: unixMsToNtp(captureMs + this.offsetMs), rtpTimestamp: timestamp >>> 0 };
  }
}
