/**
 * Whether a whole received frame (its RTP payloads in order) is one a decoder can restart at after a loss. Pure.
 * VP8 (RFC 7741): the first payload starts partition 0 (S=1, PID=0) and the VP8 frame tag's P bit is 0. H.264
 * (RFC 6184, packetization-mode 1): the frame holds the start of an IDR slice (a single unit, a STAP-A unit or the
 * FU-A start fragment of NAL type 5). The SFU's subscriber gate asks the same of a packet at a viewer's start
 * (src/channel/webrtc/keyframe.ts); here it is asked of a frame the recorder reassembled.
 */
import type { RtpCodecName } from '../sdp.ts';

const NAL_IDR = 5;
const NAL_STAP_A = 24;
const NAL_FU_A = 28;

export function vp8FrameIsKey(first: Buffer): boolean {
  if (first.length < 1) return false;
  const b0 = first[0]!;
  if ((b0 & 0x10) === 0 || (b0 & 0x07) !== 0) return false;
  let i = 1;
  if (b0 & 0x80) {
    if (first.length < 2) return false;
    const ext = first[1]!;
    i = 2;
    if (ext & 0x80) i += first.length > i && first[i]! & 0x80 ? 2 : 1;
    if (ext & 0x40) i += 1;
    if (ext & 0x30) i += 1;
  }
  return first.length > i && (first[i]! & 0x01) === 0;
}

function h264PayloadStartsIdr(p: Buffer): boolean {
  if (p.length < 2) return false;
  const type = p[0]! & 0x1f;
  if (type === NAL_IDR) return true;
  if (type === NAL_FU_A) return (p[1]! & 0x80) !== 0 && (p[1]! & 0x1f) === NAL_IDR;
  if (type === NAL_STAP_A) {
    let i = 1;
    while (i + 2 < p.length) {
      const size = p.readUInt16BE(i);
      if (size === 0 || i + 2 + size > p.length) return false;
      if ((p[i + 2]! & 0x1f) === NAL_IDR) return true;
      i += 2 + size;
    }
  }
  return false;
}

export function h264FrameIsKey(payloads: readonly Buffer[]): boolean {
  return payloads.some(h264PayloadStartsIdr);
}

export function frameIsKey(codec: RtpCodecName, payloads: readonly Buffer[]): boolean {
  if (codec === 'VP8') return payloads.length > 0 && vp8FrameIsKey(payloads[0]!);
  if (codec === 'H264') return h264FrameIsKey(payloads);
  return true;
}
