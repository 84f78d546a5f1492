/**
 * The picture size a video RTP payload announces: a VP8 keyframe's header (RFC 7741, RFC 6386 §9.1) and an H.264
 * sequence parameter set (RFC 6184 packetization, ITU-T H.264 §7.3.2.1.1). Pure: the mix's decoders size their
 * output by it, the SFU ranks a simulcast publisher's encodings by it.
 */
import { vp8FrameStart } from './keyframe.ts';

export interface VideoSize {
  readonly width: number;
  readonly height: number;
}

/** The size a VP8 keyframe's first payload announces (after the 3-byte frame tag, the start code 9d 01 2a). */
export function vp8KeyframeSize(p: Uint8Array): VideoSize | undefined {
  const i = vp8FrameStart(p);
  if (i === undefined) return undefined;
  const h = p.subarray(i);
  if (h.length < 10 || (h[0]! & 0x01) !== 0) return undefined; // P bit 0 = keyframe
  if (h[3] !== 0x9d || h[4] !== 0x01 || h[5] !== 0x2a) return undefined;
  const width = (h[6]! | (h[7]! << 8)) & 0x3fff;
  const height = (h[8]! | (h[9]! << 8)) & 0x3fff;
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** Finds an SPS in a single NAL unit, STAP-A or the first fragment of an FU-A. */
export function h264SpsSize(p: Uint8Array): VideoSize | undefined {
  if (p.length < 2) return undefined;
  const type = p[0]! & 0x1f;
  if (type === 7) return parseSps(p);
  if (type === 24) {
    for (let i = 1; i + 2 <= p.length; ) {
      const size = (p[i]! << 8) | p[i + 1]!;
      const nal = p.subarray(i + 2, i + 2 + size);
      if (nal.length > 0 && (nal[0]! & 0x1f) === 7) return parseSps(nal);
      i += 2 + size;
    }
    return undefined;
  }
  if (type === 28 && (p[1]! & 0x80) !== 0 && (p[1]! & 0x1f) === 7) {
    return parseSps(Uint8Array.of((p[0]! & 0xe0) | 7, ...p.subarray(2)));
  }
  return undefined;
}

class BitReader {
  #bit = 0;
  constructor(private readonly bytes: Uint8Array) {}
  u(n: number): number {
    let v = 0;
    for (let k = 0; k < n; k++) {
      const byte = this.bytes[this.#bit >> 3];
      if (byte === undefined) throw new RangeError('SPS ended early');
      v = v * 2 + ((byte >> (7 - (this.#bit & 7))) & 1);
      this.#bit++;
    }
    return v;
  }
  ue(): number {
    let zeros = 0;
    while (this.u(1) === 0) if (++zeros > 31) throw new RangeError('bad exp-Golomb code');
    return 2 ** zeros - 1 + this.u(zeros);
  }
  se(): number {
    const k = this.ue();
    return k & 1 ? (k + 1) / 2 : -k / 2;
  }
}

/** Drops emulation-prevention bytes (00 00 03 → 00 00). */
function rbsp(nal: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < nal.length; i++) {
    if (i >= 2 && nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0) continue;
    out.push(nal[i]!);
  }
  return Uint8Array.from(out);
}

const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function parseSps(nal: Uint8Array): VideoSize | undefined {
  try {
    const r = new BitReader(rbsp(nal.subarray(1)));
    const profile = r.u(8);
    r.u(16); // constraint flags, level
    r.ue(); // seq_parameter_set_id
    let chromaFormat = 1;
    if (HIGH_PROFILES.has(profile)) {
      chromaFormat = r.ue();
      if (chromaFormat === 3) r.u(1);
      r.ue(); // bit depth luma
      r.ue(); // bit depth chroma
      r.u(1);
      if (r.u(1)) {
        for (let i = 0; i < (chromaFormat === 3 ? 12 : 8); i++) {
          if (!r.u(1)) continue;
          let last = 8;
          let next = 8;
          for (let j = 0; j < (i < 6 ? 16 : 64) && next !== 0; j++) {
            next = (last + r.se() + 256) % 256;
            if (next !== 0) last = next;
          }
        }
      }
    }
    r.ue(); // log2_max_frame_num
    const pocType = r.ue();
    if (pocType === 0) r.ue();
    else if (pocType === 1) {
      r.u(1);
      r.se();
      r.se();
      const cycle = r.ue();
      for (let i = 0; i < cycle; i++) r.se();
    }
    r.ue(); // max_num_ref_frames
    r.u(1);
    const widthMbs = r.ue() + 1;
    const heightMapUnits = r.ue() + 1;
    const frameMbsOnly = r.u(1);
    if (!frameMbsOnly) r.u(1);
    r.u(1); // direct_8x8_inference
    let [left, right, top, bottom] = [0, 0, 0, 0];
    if (r.u(1)) [left, right, top, bottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
    const cropX = chromaFormat === 0 || chromaFormat === 3 ? 1 : 2;
    const cropY = (chromaFormat === 1 ? 2 : 1) * (2 - frameMbsOnly);
    const width = widthMbs * 16 - cropX * (left + right);
    const height = (2 - frameMbsOnly) * heightMapUnits * 16 - cropY * (top + bottom);
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

