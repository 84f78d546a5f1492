import { isRtcp } from '../rtp-payload/index.ts';

/** An RTP packet: a whole header, and not RTCP sharing its port. */
const isRtp = (packet: Buffer): boolean => packet.length >= 12 && !isRtcp(packet);

/** Signed 32-bit RTP timestamp difference `timestamp - from`, in ms: a reordered packet from before `from` counts too. */
const mediaMsBetween = (from: number, timestamp: number, clockRate: number): number => (((timestamp - from) | 0) * 1000) / clockRate;

/**
 * The wall-clock time of a track's first RTP timestamp, for the slices' UTC times (media/segment-list.ts). Pure.
 *
 * Taking the first packet's arrival makes each track's anchor carry that one packet's delay: a keyframe that came
 * in after a retransmission, a packet held behind a stall of this process, an ffmpeg start. Audio and video of one
 * publisher were each off by their own first delay, so their files disagreed by 30 to 130 ms (measured through the
 * relay, recorders/individual/loss.test.ts). Here every packet of the first stream votes: its arrival less the media
 * time since the first timestamp, and the earliest vote wins (the packet that came with the least delay). Both
 * tracks of a publisher then stand on the same floor, its send clock plus the shortest path, whatever their first
 * packets went through. The anchor is for the first timestamp ffmpeg gets (`origin`), which after loss repair may
 * be a later keyframe's, and is fixed when first read (a slice's time must not move once given out).
 */
export class ArrivalAnchor {
  #ssrc: number | undefined;
  #firstTimestamp = 0;
  #earliestMs: number | undefined;
  /** Media time (ms) from the first observed timestamp to the first one passed on. */
  #originMs: number | undefined;
  #fixedMs: number | undefined;

  constructor(private readonly clockRate: number) {}

  /** One packet as received: RTP votes; RTCP and another stream do not. */
  observe(packet: Buffer, arrivalMs: number): void {
    if (this.#fixedMs !== undefined || !isRtp(packet)) return;
    const ssrc = packet.readUInt32BE(8);
    const timestamp = packet.readUInt32BE(4);
    if (this.#ssrc === undefined) {
      this.#ssrc = ssrc;
      this.#firstTimestamp = timestamp;
    } else if (ssrc !== this.#ssrc) return;
    const vote = arrivalMs - this.#sinceFirstMs(timestamp);
    if (this.#earliestMs === undefined || vote < this.#earliestMs) this.#earliestMs = vote;
  }

  /** The RTP timestamp that is the files' time 0 (what ffmpeg got first, of stream `ssrc`): the first call counts. */
  origin(ssrc: number, timestamp: number): void {
    if (this.#originMs !== undefined || this.#ssrc === undefined || ssrc !== this.#ssrc) return;
    this.#originMs = this.#sinceFirstMs(timestamp);
  }

  #sinceFirstMs(timestamp: number): number {
    return mediaMsBetween(this.#firstTimestamp, timestamp, this.clockRate);
  }

  /** The wall-clock time (ms) of the origin's timestamp; undefined before any packet. Fixed from the first answer on. */
  firstTimestampMs(): number | undefined {
    if (this.#earliestMs !== undefined) this.#fixedMs ??= Math.round(this.#earliestMs + (this.#originMs ?? 0));
    return this.#fixedMs;
  }
}

/**
 * When each packet of a track was sent, on this process's clock, from its RTP timestamp: the same votes as
 * ArrivalAnchor (arrival less media time), but the floor is the earliest vote of the last `windowMs` only, so it
 * follows a sender clock that drifts from ours, and it runs across streams (a new SSRC starts afresh). Pure.
 *
 * Why: a packet held back (by a stall of this process, a retransmission, a jitter buffer) arrives after an instant
 * it was sent before. The hold gate asks this clock, not the arrival, whether media was sent during a hold.
 */
export class SendClock {
  #ssrc: number | undefined;
  #firstTimestamp = 0;
  /** Earliest vote per second of arrival, oldest first: [second, vote]. */
  #buckets: [number, number][] = [];

  constructor(
    private readonly clockRate: number,
    private readonly windowMs = 10_000,
  ) {}

  /**
   * One packet as received: its estimated sending time (ms, this clock), or undefined for RTCP. The packet votes
   * first, so a packet that came with the least delay yet is its own estimate.
   */
  sentAtMs(packet: Buffer, arrivalMs: number): number | undefined {
    if (!isRtp(packet)) return undefined;
    const ssrc = packet.readUInt32BE(8);
    const timestamp = packet.readUInt32BE(4);
    if (ssrc !== this.#ssrc) {
      this.#ssrc = ssrc;
      this.#firstTimestamp = timestamp;
      this.#buckets = [];
    }
    const media = mediaMsBetween(this.#firstTimestamp, timestamp, this.clockRate);
    const vote = arrivalMs - media;
    const second = Math.floor(arrivalMs / 1000);
    const last = this.#buckets.at(-1);
    if (last && last[0] === second) last[1] = Math.min(last[1], vote);
    else this.#buckets.push([second, vote]);
    const oldest = Math.floor((arrivalMs - this.windowMs) / 1000);
    while (this.#buckets.length > 1 && this.#buckets[0]![0] < oldest) this.#buckets.shift();
    let floor = vote;
    for (const [, v] of this.#buckets) floor = Math.min(floor, v);
    return floor + media;
  }
}
