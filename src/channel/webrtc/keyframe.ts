/**
 * Whether an RTP payload begins a keyframe a decoder can start from. A new subscriber's video is held back
 * until one arrives, so its first frame (and a recording's) decodes cleanly.
 */
export function startsKeyframe(codec: 'vp8' | 'h264' | string, payload: Buffer): boolean {
  if (codec === 'vp8') return vp8StartsKeyframe(payload);
  if (codec === 'h264') return h264StartsKeyframe(payload);
  return true;
}

/** RFC 7741: S=1 and PID=0 start a frame; the VP8 payload header's P bit is 0 on keyframes. */
export function vp8StartsKeyframe(p: Buffer): boolean {
  if (p.length < 1) return false;
  const x = (p[0]! & 0x80) !== 0;
  const s = (p[0]! & 0x10) !== 0;
  const pid = p[0]! & 0x07;
  if (!s || pid !== 0) return false;
  let i = 1;
  if (x) {
    if (p.length < 2) return false;
    const ext = p[1]!;
    i = 2;
    if (ext & 0x80) i += p.length > i && p[i]! & 0x80 ? 2 : 1; // I: PictureID, 7 or 15 bits
    if (ext & 0x40) i += 1; // L: TL0PICIDX
    if (ext & 0x30) i += 1; // T or K: TID/KEYIDX byte
  }
  if (p.length <= i) return false;
  return (p[i]! & 0x01) === 0;
}

/** RFC 6184: an SPS (decoders need it first), or an IDR slice start, alone, aggregated (STAP-A) or fragmented (FU-A). */
export function h264StartsKeyframe(p: Buffer): boolean {
  if (p.length < 2) return false;
  const type = p[0]! & 0x1f;
  if (type === 7 || type === 5) return true;
  if (type === 24) {
    // STAP-A: 16-bit size, then the first aggregated NAL unit.
    if (p.length < 4) return false;
    const inner = p[3]! & 0x1f;
    return inner === 7 || inner === 5;
  }
  if (type === 28) {
    const start = (p[1]! & 0x80) !== 0;
    return start && (p[1]! & 0x1f) === 5;
  }
  return false;
}
