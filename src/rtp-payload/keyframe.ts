import { h264IdrStart } from './h264.ts';

/**
 * Whether an RTP payload begins a picture a decoder can start from (VP8 keyframe, H.264 IDR first slice). The SFU
 * holds a new subscriber's video back until one arrives (channel/webrtc/gate.ts); the recorder's repair waits for
 * a frame holding one after a loss (media/jitter).
 */
export function startsKeyframe(codec: string, payload: Buffer): boolean {
  const c = codec.toLowerCase();
  if (c === 'vp8') return vp8StartsKeyframe(payload);
  if (c === 'h264') return h264IdrStart(payload) !== undefined;
  return true;
}

/**
 * Whether a whole received frame (its RTP payloads in order) is one a decoder can restart at: VP8's first payload
 * starts a keyframe; an H.264 frame holds the first slice of an IDR picture in any of its payloads (single unit,
 * STAP-A, or FU-A start), so parameter sets may come first.
 */
export function frameIsKey(codec: string, payloads: readonly Buffer[]): boolean {
  const c = codec.toLowerCase();
  if (c === 'vp8') return payloads.length > 0 && vp8StartsKeyframe(payloads[0]!);
  if (c === 'h264') return payloads.some((p) => h264IdrStart(p) !== undefined);
  return true;
}

/**
 * RFC 7741: where the VP8 payload header starts in a payload that starts a frame's first partition (S=1, PID=0),
 * after the payload descriptor; undefined for any other payload.
 */
export function vp8FrameStart(p: Uint8Array): number | undefined {
  if (p.length < 1) return undefined;
  const x = (p[0]! & 0x80) !== 0;
  const s = (p[0]! & 0x10) !== 0;
  const pid = p[0]! & 0x07;
  if (!s || pid !== 0) return undefined;
  let i = 1;
  if (x) {
    if (p.length < 2) return undefined;
    const ext = p[1]!;
    i = 2;
    if (ext & 0x80) i += p.length > i && p[i]! & 0x80 ? 2 : 1; // I: PictureID, 7 or 15 bits
    if (ext & 0x40) i += 1; // L: TL0PICIDX
    if (ext & 0x30) i += 1; // T or K: TID/KEYIDX byte
  }
  return p.length > i ? i : undefined;
}

/** RFC 7741: S=1 and PID=0 start a frame's first partition; the VP8 payload header's P bit is 0 on keyframes. */
export function vp8StartsKeyframe(p: Buffer): boolean {
  const i = vp8FrameStart(p);
  return i !== undefined && (p[i]! & 0x01) === 0;
}
