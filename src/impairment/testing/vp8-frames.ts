import type { RtpPacket } from 'werift';

/** What a viewer could decode of a VP8 stream: frames by picture ID, complete or not. */
export interface Vp8FrameCount {
  /** Picture IDs from the first to the last frame seen: the frames the publisher sent in between. */
  readonly expected: number;
  /** Frames whose packets all arrived: from the partition start (S=1) to the marker, no sequence number missing. */
  readonly complete: number;
}

/** The 15- or 7-bit PictureID of a VP8 payload descriptor (RFC 7741), if it carries one. */
function pictureId(p: Buffer): number | undefined {
  if (p.length < 3 || !(p[0]! & 0x80) || !(p[1]! & 0x80)) return undefined;
  return p[2]! & 0x80 ? ((p[2]! & 0x7f) << 8) | p[3]! : p[2]! & 0x7f;
}

/**
 * Counts the frames of a VP8 stream as received (packets in arrival order, duplicates and retransmissions
 * included; padding-only packets ignored). Chromium numbers its frames with a 15-bit PictureID, so a frame lost
 * with all its packets still counts as expected.
 */
export function countVp8Frames(packets: readonly RtpPacket[]): Vp8FrameCount {
  const frames = new Map<number, { seqs: Set<number>; start?: number; end?: number }>();
  let ids: number[] = [];
  for (const p of packets) {
    if (p.payload.length === 0) continue;
    const id = pictureId(p.payload);
    if (id === undefined) continue;
    let f = frames.get(id);
    if (!f) {
      f = { seqs: new Set() };
      frames.set(id, f);
      ids.push(id);
    }
    const seq = p.header.sequenceNumber;
    f.seqs.add(seq);
    if (p.payload[0]! & 0x10 && (p.payload[0]! & 0x07) === 0) f.start = seq;
    if (p.header.marker) f.end = seq;
  }
  if (ids.length === 0) return { expected: 0, complete: 0 };
  // PictureIDs wrap at 2^15: unwrap in arrival order (retransmitted frames arrive late, never 2^14 late).
  const first = ids[0]!;
  ids = ids.map((id) => {
    const d = (id - first + 0x8000) & 0x7fff;
    return d >= 0x4000 ? d - 0x8000 : d;
  });
  const expected = Math.max(...ids) - Math.min(...ids) + 1;
  let complete = 0;
  for (const f of frames.values()) {
    if (f.start === undefined || f.end === undefined) continue;
    const n = ((f.end - f.start + 0x10000) & 0xffff) + 1;
    let all = true;
    for (let i = 0; i < n && all; i++) all = f.seqs.has((f.start + i) & 0xffff);
    if (all) complete++;
  }
  return { expected, complete };
}
