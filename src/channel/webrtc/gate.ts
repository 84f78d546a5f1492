import { h264IdrStart, stapA, vp8StartsKeyframe, type H264ParameterSetPair } from '../../rtp-payload/index.ts';

/** What the gate reads of a publisher's RTP packet. */
export interface GateInput {
  readonly ssrc: number;
  readonly seq: number;
  readonly timestamp: number;
  readonly payload: Buffer;
  /**
   * The packet came after a later one of its stream (a NACK repair, a reordered packet; `behind` in forward.ts): it
   * opens no gate, since the packets after it went by before this subscriber was there.
   */
  readonly behind?: boolean;
}

/** Numbers a packet goes out with to this subscriber. */
export interface GateNumbers {
  readonly seq: number;
  readonly timestamp: number;
}

/** A packet the gate makes up (H.264 parameter sets); it goes out before the forwarded one, marker unset. */
export interface GateInjected extends GateNumbers {
  readonly payload: Buffer;
}

export interface GateResult {
  /** Sent first, in order. */
  readonly inject: readonly GateInjected[];
  /** The input packet's outgoing numbers, or undefined when it is dropped. */
  readonly forward: GateNumbers | undefined;
}

/**
 * Decides whether a subscriber can start at a payload: undefined when not, otherwise the payloads to send before
 * it (empty for most codecs).
 */
export type StreamStart = (payload: Buffer) => readonly Buffer[] | undefined;

/**
 * Where a subscriber may start a codec's stream. VP8: a keyframe's first partition. H.264: the first slice of an
 * IDR picture; when its SPS and PPS are not in that same packet (they went by before the viewer joined, or the
 * publisher sent them once), the publisher's latest ones are sent first as a STAP-A; with none known, no start.
 * Anything else (Opus) starts anywhere. Why inject rather than wait for in-band ones: docs/channel.md, "H.264
 * parameter sets: injected, not waited for".
 */
export function streamStartFor(codec: string, parameterSets: () => H264ParameterSetPair | undefined): StreamStart {
  if (codec === 'vp8') return (p) => (vp8StartsKeyframe(p) ? [] : undefined);
  if (codec === 'h264') {
    return (p) => {
      const idr = h264IdrStart(p);
      if (!idr) return undefined;
      if (idr.withParameterSets) return [];
      const ps = parameterSets();
      return ps ? [stapA([ps.sps, ps.pps])] : undefined;
    };
  }
  return () => [];
}

const NOTHING_INJECTED: readonly GateInjected[] = Object.freeze([]);
const u16 = (n: number) => ((n % 0x10000) + 0x10000) % 0x10000;
const u32 = (n: number) => ((n % 0x100000000) + 0x100000000) % 0x100000000;
/** Whether sequence number `a` comes after `b` (RFC 3550 wrap-around). */
export const seqAfter = (a: number, b: number) => a !== b && u16(a - b) < 0x8000;

/**
 * One subscriber's view of one published track: nothing passes until a packet the decoder can start at
 * (`StreamStart`), and the numbers it sees stay continuous. Before the first start the publisher's own numbers
 * are kept (injected packets take the numbers just before, those of packets the viewer never got). When the
 * publisher's SSRC changes (a new encoder stream, new numbering) the gate closes again until the new stream's
 * keyframe, then continues the subscriber's sequence numbers where they stopped and its timestamps by the time
 * elapsed on the injected clock (docs/channel.md, "Numbering"). Pure: no I/O, time comes in as an argument.
 */
export class SubscriberGate {
  #open = false;
  #ssrc: number | undefined;
  #seqOffset = 0;
  #tsOffset = 0;
  #last: { seq: number; timestamp: number; atMs: number } | undefined;

  constructor(
    private readonly start: StreamStart,
    /** RTP clock rate of the codec (90000 for video), to carry timestamps across a stream change. */
    private readonly clockRate: number,
  ) {}

  /** True until the subscriber got a packet it can start decoding at (again true after a stream change). */
  get waiting(): boolean {
    return !this.#open;
  }

  admit(p: GateInput, nowMs: number): GateResult {
    if (this.#open && p.ssrc !== this.#ssrc) this.#open = false;
    let inject: readonly GateInjected[] = NOTHING_INJECTED;
    if (!this.#open) {
      // A repair of a keyframe's first packet opened a recorder's gate with the rest of that keyframe already gone
      // by: a hole that never filled, and the recording froze until the next keyframe (session 24).
      if (p.behind) return { inject: NOTHING_INJECTED, forward: undefined };
      const before = this.start(p.payload);
      if (!before) return { inject: NOTHING_INJECTED, forward: undefined };
      this.#openAt(p, before.length, nowMs);
      const timestamp = u32(p.timestamp + this.#tsOffset);
      inject = before.map((payload, i) => ({ seq: u16(p.seq + this.#seqOffset - before.length + i), timestamp, payload }));
    }
    const out = { seq: u16(p.seq + this.#seqOffset), timestamp: u32(p.timestamp + this.#tsOffset) };
    const last = this.#last;
    if (!last) this.#last = { seq: out.seq, timestamp: out.timestamp, atMs: nowMs };
    else if (seqAfter(out.seq, last.seq)) {
      // In place: this runs for every packet of every subscriber.
      last.seq = out.seq;
      last.timestamp = out.timestamp;
      last.atMs = nowMs;
    }
    return { inject, forward: out };
  }

  /**
   * The timestamp this subscriber's stream has for the publisher's `timestamp` of stream `ssrc`, with the offset
   * its packets go out with (for the publisher's sender reports, docs/channel.md "Sender reports"); undefined while
   * the gate is closed or for another stream than the one it forwards, whose offset is not known.
   */
  outgoingTimestamp(ssrc: number, timestamp: number): number | undefined {
    if (!this.#open || ssrc !== this.#ssrc) return undefined;
    return u32(timestamp + this.#tsOffset);
  }

  #openAt(p: GateInput, injected: number, nowMs: number): void {
    this.#open = true;
    this.#ssrc = p.ssrc;
    const last = this.#last;
    if (!last) return; // the first start: offsets 0, the publisher's numbers as they are
    this.#seqOffset = u16(last.seq + 1 + injected - p.seq);
    const elapsed = Math.max(1, Math.round(((nowMs - last.atMs) * this.clockRate) / 1000));
    this.#tsOffset = u32(last.timestamp + elapsed - p.timestamp);
  }
}
