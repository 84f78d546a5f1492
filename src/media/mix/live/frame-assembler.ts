/**
 * RTP video packets → whole coded frames, so a decoder can be fed one write per frame through a pipe instead of
 * one loopback datagram per packet (docs/recording-mix.md, "Video decoding"). VP8 per RFC 7741 (payload
 * descriptor removed), H.264 per RFC 6184 packetization mode 0/1 (single NAL units, STAP-A, FU-A) written as an
 * Annex B access unit. A frame is complete at its marker bit when its packets have contiguous sequence numbers
 * from a frame start; a lost or out-of-place packet breaks the frame, and the frames after it are dropped until
 * the next keyframe (a decoder given a frame that references a broken one shows corruption until then). Pure.
 */
import type { RtpCodecName } from '../../sdp.ts';
import type { RtpHeaderFields } from './rtp-header.ts';
import { h264SpsSize, vp8FrameSize, type VideoSize } from './video-size.ts';

export interface CodedFrame {
  readonly rtpTimestamp: number;
  /** The coded bitstream of the frame: a VP8 frame, or an H.264 Annex B access unit. */
  readonly data: Buffer;
  readonly keyframe: boolean;
  /** The picture size a keyframe declares (VP8 frame header, H.264 SPS). */
  readonly size: VideoSize | undefined;
}

export type AssembleResult =
  | { readonly kind: 'frame'; readonly frame: CodedFrame }
  /** A frame was lost or broken: frames are dropped until the next keyframe. */
  | { readonly kind: 'lost' }
  /** Waiting for a keyframe after a loss (or at the start): this frame was dropped. */
  | { readonly kind: 'dropped' };

const START_CODE = Buffer.from([0, 0, 0, 1]);
/** Packets of one frame kept at most (a 4K keyframe at ~1200 bytes per packet is well under this). */
const MAX_FRAME_PACKETS = 4096;

const seqDelta = (a: number, b: number): number => ((((a - b) & 0xffff) + 0x8000) & 0xffff) - 0x8000;

interface Part {
  readonly seq: number;
  readonly payload: Buffer;
}

export class FrameAssembler {
  #timestamp: number | undefined;
  #parts: Part[] = [];
  #broken = false;
  /** After a loss: only a keyframe may start the stream again. Also true before the first keyframe. */
  #needKeyframe = true;
  /** The H.264 parameter sets from the offer (sprop-parameter-sets), put before a keyframe that lacks an SPS. */
  readonly #sprop: readonly Buffer[];
  /** Sequence number of the last packet of the last frame completed or dropped. */
  #lastSeq: number | undefined;

  constructor(
    private readonly codec: RtpCodecName,
    fmtp?: string,
  ) {
    if (codec !== 'VP8' && codec !== 'H264') throw new RangeError(`no frame assembler for ${codec}`);
    const sprop = /(?:^|;)\s*sprop-parameter-sets=([^;]*)/.exec(fmtp ?? '')?.[1];
    this.#sprop = (sprop?.split(',') ?? []).map((b) => Buffer.from(b.trim(), 'base64')).filter((b) => b.length > 0);
  }

  /** Whether the stream waits for a keyframe (nothing decodable until then). */
  get waitingForKeyframe(): boolean {
    return this.#needKeyframe;
  }

  /** One packet (header already read); a result once its frame is complete, lost or dropped. */
  push(header: RtpHeaderFields, packet: Buffer): AssembleResult | undefined {
    const payload = packet.subarray(header.payloadOffset, header.payloadEnd);
    if (payload.length === 0 && this.#timestamp === undefined) {
      // Padding only (a sender probing bandwidth) between frames: it takes a sequence number and nothing else.
      if (this.#lastSeq !== undefined && seqDelta(header.sequenceNumber, this.#lastSeq) === 1) this.#lastSeq = header.sequenceNumber;
      return undefined;
    }
    let result: AssembleResult | undefined;
    if (this.#timestamp !== undefined && header.timestamp !== this.#timestamp) {
      // A new frame began before the last one's marker: the last one lost its end.
      if (this.#parts.length > 0) result = this.#lose();
      this.#reset();
    }
    this.#timestamp ??= header.timestamp;
    // Padding inside a frame is kept for its sequence number and skipped when the frame is put together.
    if (this.#parts.length < MAX_FRAME_PACKETS) this.#parts.push({ seq: header.sequenceNumber, payload });
    else this.#broken = true;
    if (!header.marker) return result;
    const complete = this.#complete();
    this.#reset();
    return complete ?? result;
  }

  #reset(): void {
    this.#timestamp = undefined;
    this.#parts = [];
    this.#broken = false;
  }

  #lose(): AssembleResult {
    const last = this.#parts.at(-1);
    if (last) this.#lastSeq = last.seq;
    this.#needKeyframe = true;
    return { kind: 'lost' };
  }

  /** The frame in #parts, ended by its marker packet. */
  #complete(): AssembleResult | undefined {
    const parts = this.#parts;
    if (parts.length === 0) return undefined;
    // Packets reordered within the frame are put back in order; a gap anywhere breaks it.
    const first = parts[0]!.seq;
    if (parts.some((p, i) => i > 0 && seqDelta(p.seq, parts[i - 1]!.seq) !== 1)) parts.sort((a, b) => seqDelta(a.seq, first) - seqDelta(b.seq, first));
    let broken = this.#broken || parts.some((p, i) => i > 0 && seqDelta(p.seq, parts[i - 1]!.seq) !== 1);
    // A gap before this frame (its first packets, or a whole frame, lost) breaks the chain of references.
    const previous = this.#lastSeq;
    const gapBefore = previous !== undefined && seqDelta(parts[0]!.seq, previous) !== 1;
    this.#lastSeq = parts.at(-1)!.seq;
    const media = parts.filter((p) => p.payload.length > 0);
    if (media.length === 0) return undefined;
    const frame = broken ? undefined : this.codec === 'VP8' ? this.#vp8(media) : this.#h264(media);
    if (!frame) broken = true;
    if (broken) {
      this.#needKeyframe = true;
      return { kind: 'lost' };
    }
    if (!frame!.keyframe && (this.#needKeyframe || gapBefore)) {
      const wasWaiting = this.#needKeyframe;
      this.#needKeyframe = true;
      return wasWaiting ? { kind: 'dropped' } : { kind: 'lost' };
    }
    this.#needKeyframe = false;
    return { kind: 'frame', frame: frame! };
  }

  #vp8(parts: readonly Part[]): CodedFrame | undefined {
    const chunks: Buffer[] = [];
    for (const [i, { payload }] of parts.entries()) {
      const offset = vp8DescriptorLength(payload);
      if (offset === undefined || offset >= payload.length) return undefined;
      const start = (payload[0]! & 0x10) !== 0 && (payload[0]! & 0x07) === 0;
      if (i === 0 && !start) return undefined; // the frame's first packet is missing
      chunks.push(payload.subarray(offset));
    }
    const data = Buffer.concat(chunks);
    const keyframe = (data[0]! & 0x01) === 0;
    const size = keyframe ? vp8FrameSize(data) : undefined;
    if (keyframe && !size) return undefined;
    return { rtpTimestamp: this.#timestampOf(), data, keyframe, size };
  }

  #h264(parts: readonly Part[]): CodedFrame | undefined {
    const chunks: Buffer[] = [];
    let size: VideoSize | undefined;
    let idr = false;
    let sps = false;
    const nal = (unit: Buffer): void => {
      const type = unit[0]! & 0x1f;
      if (type === 5) idr = true;
      if (type === 7) {
        sps = true;
        size ??= h264SpsSize(unit);
      }
      chunks.push(START_CODE, unit);
    };
    let inFragment = false;
    for (const { payload } of parts) {
      const type = payload[0]! & 0x1f;
      if (type >= 1 && type <= 23) {
        if (inFragment) return undefined;
        nal(payload);
      } else if (type === 24) {
        if (inFragment) return undefined;
        for (let i = 1; i + 2 <= payload.length; ) {
          const length = payload.readUInt16BE(i);
          if (length === 0 || i + 2 + length > payload.length) return undefined;
          nal(payload.subarray(i + 2, i + 2 + length));
          i += 2 + length;
        }
      } else if (type === 28) {
        if (payload.length < 3) return undefined;
        const fu = payload[1]!;
        const startBit = (fu & 0x80) !== 0;
        const endBit = (fu & 0x40) !== 0;
        if (startBit === inFragment) return undefined; // a start inside a fragment, or a middle without one
        if (startBit) {
          const header = Buffer.of((payload[0]! & 0xe0) | (fu & 0x1f));
          if ((fu & 0x1f) === 5) idr = true;
          if ((fu & 0x1f) === 7) sps = true; // fragmented SPS: sized below from the whole unit
          chunks.push(START_CODE, header);
          inFragment = true;
        }
        chunks.push(payload.subarray(2));
        if (endBit) inFragment = false;
      } else {
        return undefined; // STAP-B, MTAP, FU-B: not in packetization modes 0 and 1
      }
    }
    if (inFragment) return undefined;
    if (idr && !sps && this.#sprop.length > 0) {
      const sets: Buffer[] = [];
      for (const set of this.#sprop) {
        sets.push(START_CODE, set);
        if ((set[0]! & 0x1f) === 7) size ??= h264SpsSize(set);
      }
      chunks.unshift(...sets);
    }
    const data = Buffer.concat(chunks);
    if (idr && !size) size = annexBSpsSize(data);
    return { rtpTimestamp: this.#timestampOf(), data, keyframe: idr && size !== undefined, size: idr ? size : undefined };
  }

  #timestampOf(): number {
    return this.#timestamp!;
  }
}

/** Bytes of the VP8 payload descriptor at the start of `p` (RFC 7741 §4.2), or undefined if it is cut short. */
export function vp8DescriptorLength(p: Uint8Array): number | undefined {
  if (p.length < 1) return undefined;
  let i = 1;
  if (p[0]! & 0x80) {
    const x = p[i++];
    if (x === undefined) return undefined;
    if (x & 0x80) {
      const id = p[i];
      if (id === undefined) return undefined;
      i += id & 0x80 ? 2 : 1;
    }
    if (x & 0x40) i += 1;
    if (x & 0x30) i += 1;
  }
  return i <= p.length ? i : undefined;
}

/** The SPS size in an Annex B access unit (a fragmented SPS, reassembled). */
function annexBSpsSize(au: Buffer): VideoSize | undefined {
  for (let i = 0; i + 4 < au.length; i++) {
    if (au[i] !== 0 || au[i + 1] !== 0 || au[i + 2] !== 0 || au[i + 3] !== 1 || (au[i + 4]! & 0x1f) !== 7) continue;
    let end = au.indexOf(START_CODE, i + 4);
    if (end < 0) end = au.length;
    return h264SpsSize(au.subarray(i + 4, end));
  }
  return undefined;
}

/** IVF (the container ffmpeg's `ivf` demuxer reads): a 32-byte file header, then 12 bytes before each frame. */
export function ivfFileHeader(codec: RtpCodecName, size: VideoSize): Buffer {
  const h = Buffer.alloc(32);
  h.write('DKIF', 0, 'latin1');
  h.writeUInt16LE(0, 4);
  h.writeUInt16LE(32, 6);
  h.write(codec === 'VP8' ? 'VP80' : 'H264', 8, 'latin1');
  h.writeUInt16LE(size.width & 0xffff, 12);
  h.writeUInt16LE(size.height & 0xffff, 14);
  h.writeUInt32LE(90_000, 16); // time base: the RTP clock
  h.writeUInt32LE(1, 20);
  return h;
}

/** One frame with its IVF frame header (size, 64-bit pts) in one buffer: one write per frame. */
export function ivfFrame(data: Buffer, pts: number): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32LE(data.length, 0);
  out.writeUInt32LE(pts % 0x1_0000_0000, 4);
  out.writeUInt32LE(Math.floor(pts / 0x1_0000_0000), 8);
  data.copy(out, 12);
  return out;
}
