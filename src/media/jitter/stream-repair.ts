/**
 * What the recorder does about loss on one RTP stream (issue 27), pure: the jitter buffer puts packets back in
 * order and waits for retransmissions; what is lost for good is then repaired per kind.
 * - Video: packets are passed on a whole frame at a time (a frame: the packets of one timestamp, up to the marker).
 *   After a gap, nothing is passed until a whole keyframe (rtp-payload: frameIsKey): no frame that references a lost one reaches
 *   the decoder or the file (a freeze, never corruption), and a keyframe is wanted. Sequence numbers going out stay
 *   continuous, so the depacketizer behind sees no hole of its own.
 * - Audio (Opus): lost packets are remade with their numbers and timestamps, so the track keeps its length and the
 *   A/V sync: by libopus when a repair is given (opus-loss.ts: from the next packet's in-band FEC, or concealed),
 *   otherwise (and before the first OPUS_REMADE_MAX of a long gap) as TOC-only packets, which a decoder takes as
 *   lost frames (RFC 6716 §4.4) and conceals its own way.
 */
import { readRtpHeader } from '../../rtp-payload/index.ts';
import type { RtpCodecName } from '../sdp.ts';
import { DEFAULT_JITTER_BOUNDS, JitterBuffer, type JitterBounds, type JitterOutput, type JitterStats } from './jitter-buffer.ts';
import { frameIsKey } from '../../rtp-payload/index.ts';
import { OPUS_WARM_PACKETS, type OpusLossRepair } from './opus-loss.ts';

export interface RtpIn {
  readonly seq: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly payloadType: number;
  readonly marker: boolean;
  readonly payload: Buffer;
  /** The packet as received. */
  readonly raw: Buffer;
}

export interface RepairStats extends JitterStats {
  /** Video frames not passed on because they followed an unrepaired loss (waiting for a keyframe). */
  framesDropped: number;
  /** Lost audio packets concealed (by libopus, or left to the decoder as TOC-only packets). */
  concealed: number;
  /** Lost audio packets remade from the next packet's in-band FEC. */
  fecRecovered: number;
}

export interface RepairResult {
  /** Packets for the decoder or slicer, in order. */
  readonly out: readonly Buffer[];
  /** A loss could not be repaired and the stream waits for a keyframe: ask the sender for one. */
  readonly wantKeyframe: boolean;
}

/** Opus RTP timestamps step 2.5–120 ms at 48 kHz; another step across a gap is no packet train to fill. */
const OPUS_STEP_MIN = 120;
const OPUS_STEP_MAX = 5760;

export function parseRtp(raw: Buffer): RtpIn | undefined {
  const h = readRtpHeader(raw);
  if (!h) return undefined;
  return {
    seq: h.sequenceNumber,
    timestamp: h.timestamp,
    ssrc: h.ssrc,
    payloadType: h.payloadType,
    marker: h.marker,
    payload: raw.subarray(h.payloadOffset, h.payloadEnd),
    raw,
  };
}

/** A 12-byte RTP header and `payload` (no extensions). */
export function rtpBytes(p: { readonly payloadType: number; readonly marker: boolean; readonly seq: number; readonly timestamp: number; readonly ssrc: number }, payload: Buffer): Buffer {
  const b = Buffer.allocUnsafe(12 + payload.length);
  b[0] = 0x80;
  b[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f);
  b.writeUInt16BE(p.seq & 0xffff, 2);
  b.writeUInt32BE(p.timestamp >>> 0, 4);
  b.writeUInt32BE(p.ssrc >>> 0, 8);
  payload.copy(b, 12);
  return b;
}

export class StreamRepair {
  readonly #buffer: JitterBuffer<RtpIn>;
  readonly #video: boolean;
  readonly stats: RepairStats;
  /** Video: the frame being gathered. */
  #frame: RtpIn[] = [];
  #needKey = true;
  /** The next sequence number going out (undefined before the first). */
  #outSeq: number | undefined;
  /** Audio: the last packet passed on, and a gap waiting for the packet after it. */
  #lastAudio: RtpIn | undefined;
  #gap: { readonly firstSeq: number; readonly count: number } | undefined;
  /** Audio: the last payloads passed on (the Opus repair's warm-up), oldest first. */
  #recentAudio: Buffer[] = [];
  #opus: OpusLossRepair | undefined;

  constructor(
    private readonly codec: RtpCodecName,
    clockRate: number,
    bounds: JitterBounds = DEFAULT_JITTER_BOUNDS,
  ) {
    this.#buffer = new JitterBuffer<RtpIn>(clockRate, bounds);
    this.#video = codec !== 'opus';
    this.stats = Object.assign(this.#buffer.stats, { framesDropped: 0, concealed: 0, fecRecovered: 0 });
  }

  /** Audio: lost packets are remade by libopus (in-band FEC, or its concealment). */
  useOpusRepair(repair: OpusLossRepair): void {
    if (!this.#video) this.#opus = repair;
  }

  /** A packet as received (RTCP and unreadable packets are passed on untouched). */
  push(raw: Buffer, nowMs: number): RepairResult {
    const p = parseRtp(raw);
    if (!p || (raw[1]! >= 200 && raw[1]! <= 204)) return { out: [raw], wantKeyframe: false };
    return this.#apply(this.#buffer.push(p, nowMs));
  }

  poll(nowMs: number): RepairResult {
    return this.#apply(this.#buffer.poll(nowMs));
  }

  /** When `poll` has something to give up on. */
  deadline(nowMs: number): number | undefined {
    return this.#buffer.deadline(nowMs);
  }

  holdMs(nowMs: number): number {
    return this.#buffer.holdMs(nowMs);
  }

  /** End of stream: what is held goes out (a video frame without its end is dropped). */
  flush(): RepairResult {
    return this.#apply(this.#buffer.flush());
  }

  #apply(outputs: readonly JitterOutput<RtpIn>[]): RepairResult {
    const out: Buffer[] = [];
    let wantKeyframe = false;
    for (const o of outputs) {
      if (this.#video) wantKeyframe = this.#video1(o, out) || wantKeyframe;
      else this.#audio1(o, out);
    }
    return { out, wantKeyframe };
  }

  /** One output of the buffer for video; true when a keyframe is wanted. */
  #video1(o: JitterOutput<RtpIn>, out: Buffer[]): boolean {
    if (o.kind !== 'packet') {
      if (this.#frame.length > 0 && o.kind === 'gap') this.stats.framesDropped++;
      this.#frame = [];
      this.#needKey = true;
      return o.kind === 'gap';
    }
    const p = o.packet;
    let want = false;
    if (this.#frame.length > 0 && this.#frame[0]!.timestamp !== p.timestamp) want = this.#frameDone(out);
    this.#frame.push(p);
    if (p.marker) want = this.#frameDone(out) || want;
    return want;
  }

  /** The gathered frame is whole: passed on, or dropped while waiting for a keyframe (then true). */
  #frameDone(out: Buffer[]): boolean {
    const frame = this.#frame;
    this.#frame = [];
    if (this.#needKey && !frameIsKey(this.codec, frame.map((p) => p.payload))) {
      this.stats.framesDropped++;
      return true;
    }
    this.#needKey = false;
    for (const p of frame) out.push(this.#numbered(p));
    return false;
  }

  /** The packet with the next outgoing sequence number (a copy only when it differs). */
  #numbered(p: RtpIn): Buffer {
    const seq = this.#outSeq ?? p.seq;
    this.#outSeq = (seq + 1) & 0xffff;
    if (seq === p.seq) return p.raw;
    const b = Buffer.from(p.raw);
    b.writeUInt16BE(seq, 2);
    return b;
  }

  #audio1(o: JitterOutput<RtpIn>, out: Buffer[]): void {
    if (o.kind === 'reset') {
      this.#lastAudio = undefined;
      this.#gap = undefined;
      this.#recentAudio = [];
      return;
    }
    if (o.kind === 'gap') {
      this.#gap = o;
      return;
    }
    const p = o.packet;
    const gap = this.#gap;
    const last = this.#lastAudio;
    this.#gap = undefined;
    if (gap && last && last.payload.length > 0) {
      const step = Math.round((((p.timestamp - last.timestamp) >>> 0) / (gap.count + 1)));
      if (step >= OPUS_STEP_MIN && step <= OPUS_STEP_MAX) {
        // The TOC byte of the packet before (same mode, bandwidth and frame size), frame count code 0, no frame.
        const toc = Buffer.from([last.payload[0]! & 0xfc]);
        const remade = this.#opus?.remake(this.#recentAudio, p.payload, step, gap.count);
        const firstRemade = gap.count - (remade?.packets.length ?? 0);
        for (let i = 0; i < gap.count; i++) {
          const payload = i >= firstRemade ? remade!.packets[i - firstRemade]! : toc;
          const made = { ...p, seq: (gap.firstSeq + i) & 0xffff, marker: false, timestamp: (last.timestamp + step * (i + 1)) >>> 0, payload };
          out.push(this.#numbered({ ...made, raw: rtpBytes(made, payload) }));
          if (remade?.lastFromFec && i === gap.count - 1) this.stats.fecRecovered++;
          else this.stats.concealed++;
        }
      }
    }
    this.#lastAudio = p;
    this.#recentAudio.push(p.payload);
    if (this.#recentAudio.length > OPUS_WARM_PACKETS) this.#recentAudio.shift();
    out.push(this.#numbered(p));
  }
}
