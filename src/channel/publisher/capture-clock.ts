/**
 * The synthetic publisher's capture clock, for its RTCP sender reports. Both lavfi inputs of its ffmpeg start at
 * time 0 together, so audio and video timestamps share one media timeline (packet time = its timestamp − the
 * first of its kind). That timeline is tied to wall time by how late packets arrive from ffmpeg: the smallest
 * lag (arrival − origin − media time) over the last half second, over both kinds. On a busy machine ffmpeg falls
 * behind real time (the `-re` pacing cannot catch up); dating media by the first packet alone then put it
 * seconds in the past, where a mix drops it as late. The smallest lag is the audio's (video encoding takes
 * longer), and the same lag dates both kinds, so the reports keep a browser's property: audio and video of one
 * instant map to one wall time. ffmpeg's own reports date each stream from its own first packet (its video leaves
 * about half a second after its audio), so they are not used. Pure: times come in as arguments.
 */
import { unixMsToNtp } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import type { ClockMapping } from '../webrtc/index.ts';

const CLOCK_RATE: Record<MediaKind, number> = { audio: 48_000, video: 90_000 };
/** A report per kind at most this often (browsers send about one a second). */
const REPORT_INTERVAL_MS = 1000;
/** The lag is the smallest seen over this window. */
const LAG_WINDOW_MS = 500;
const HISTORY = 1000;

/** `a − b` for 32-bit RTP timestamps, the short way round the wrap. */
const delta = (a: number, b: number) => ((((a - b) >>> 0) + 0x80000000) >>> 0) - 0x80000000;

export class CaptureClock {
  #originMs: number | undefined;
  readonly #first = new Map<MediaKind, number>();
  readonly #lastReportMs = new Map<MediaKind, number>();
  /** The media time ↔ wall time of each report sent (the latest HISTORY), for `captureTimeOf`. */
  readonly #anchors: { mediaMs: number; wallMs: number }[] = [];
  /** Recent (arrival, lag) pairs, oldest first. */
  #lags: { atMs: number; lagMs: number }[] = [];

  /** `offsetMs`: how far ahead of real time the reports put the publisher's clock (tests of sender clock offsets). */
  constructor(private readonly offsetMs = 0) {}

  /** Wall time (Unix ms, on our clock) of media time 0: when the first packet of either kind arrived. */
  get originMs(): number | undefined {
    return this.#originMs;
  }

  /** A packet of `kind` with `timestamp` arrived at `nowMs`. */
  observe(kind: MediaKind, timestamp: number, nowMs: number): void {
    this.#originMs ??= nowMs;
    if (!this.#first.has(kind)) this.#first.set(kind, timestamp);
    this.#lags.push({ atMs: nowMs, lagMs: nowMs - this.#originMs - this.#mediaMs(kind, timestamp) });
  }

  /** As `observe`, and the sender report to send now for this packet if one is due (one a second per kind). */
  report(kind: MediaKind, timestamp: number, nowMs: number): ClockMapping | undefined {
    this.observe(kind, timestamp, nowMs);
    if (nowMs - (this.#lastReportMs.get(kind) ?? -Infinity) < REPORT_INTERVAL_MS) return undefined;
    this.#lastReportMs.set(kind, nowMs);
    this.#lags = this.#lags.filter((l) => l.atMs >= nowMs - LAG_WINDOW_MS);
    const lagMs = this.#lags.reduce((m, l) => Math.min(m, l.lagMs), Infinity);
    const mediaMs = this.#mediaMs(kind, timestamp);
    const captureMs = this.#originMs! + mediaMs + lagMs;
    this.#anchors.push({ mediaMs, wallMs: captureMs });
    if (this.#anchors.length > HISTORY) this.#anchors.shift();
    return { ntpTimestamp: unixMsToNtp(captureMs + this.offsetMs), rtpTimestamp: timestamp >>> 0 };
  }

  /** Our wall time of media time `mediaMs` as the reports sent nearest to it date it (without the offset). */
  captureTimeOf(mediaMs: number): number | undefined {
    let best: { mediaMs: number; wallMs: number } | undefined;
    for (const a of this.#anchors) if (!best || Math.abs(a.mediaMs - mediaMs) < Math.abs(best.mediaMs - mediaMs)) best = a;
    return best && best.wallMs + (mediaMs - best.mediaMs);
  }

  #mediaMs(kind: MediaKind, timestamp: number): number {
    return (delta(timestamp, this.#first.get(kind)!) * 1000) / CLOCK_RATE[kind];
  }
}
