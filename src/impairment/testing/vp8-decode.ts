import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RtpPacket } from 'werift';
import { FFPROBE_BIN, ivfFileHeader, ivfFrameHeader, RtpTimestampUnwrapper } from '../../media/index.ts';
import { runChild } from '../../process/index.ts';

/** The VP8 payload descriptor's length (RFC 7741 §4.2), or undefined for a payload too short to hold one. */
function descriptorLength(p: Buffer): number | undefined {
  if (p.length < 1) return undefined;
  let n = 1;
  if (p[0]! & 0x80) {
    if (p.length < 2) return undefined;
    const x = p[1]!;
    n = 2;
    if (x & 0x80) n += p.length > 2 && p[2]! & 0x80 ? 2 : 1; // PictureID, 7 or 15 bits
    if (x & 0x40) n += 1; // TL0PICIDX
    if (x & 0x30) n += 1; // TID / KEYIDX
  }
  return n <= p.length ? n : undefined;
}

/**
 * The frames a viewer could hand its decoder, as IVF: packets in sequence order, each frame from its partition
 * start to its marker with no sequence number missing (an incomplete frame is left out, as a receiver drops it).
 */
export function vp8PacketsToIvf(packets: readonly RtpPacket[]): { readonly ivf: Buffer; readonly frames: number } {
  // Sequence numbers unwrapped in arrival order (a retransmission comes late, never half the space late).
  let last: number | undefined;
  let ext = 0;
  const ordered = packets
    .filter((p) => p.payload.length > 0)
    .map((p) => {
      const seq = p.header.sequenceNumber;
      if (last === undefined) ext = seq;
      else ext += ((seq - last + 0x18000) & 0xffff) - 0x8000;
      last = seq;
      return { ext, p };
    })
    .sort((a, b) => a.ext - b.ext);
  const parts: Buffer[] = [ivfFileHeader('VP80')];
  const clock = new RtpTimestampUnwrapper();
  let frames = 0;
  let current: { start: number; next: number; timestamp: number; chunks: Buffer[] } | undefined;
  for (const { ext: seq, p } of ordered) {
    const d = descriptorLength(p.payload);
    if (d === undefined) continue;
    const start = (p.payload[0]! & 0x10) !== 0 && (p.payload[0]! & 0x07) === 0;
    if (start) current = { start: seq, next: seq, timestamp: p.header.timestamp, chunks: [] };
    if (!current || seq !== current.next || p.header.timestamp !== current.timestamp) {
      current = undefined;
      continue;
    }
    current.chunks.push(p.payload.subarray(d));
    current.next = seq + 1;
    if (p.header.marker) {
      const frame = Buffer.concat(current.chunks);
      parts.push(ivfFrameHeader(frame.length, clock.next(current.timestamp)), frame);
      frames++;
      current = undefined;
    }
  }
  return { ivf: Buffer.concat(parts), frames };
}

/**
 * What the decoder says of those frames (empty: no decode error), and how many there were. ffprobe decodes every
 * frame (`-count_frames`) with no muxer behind it: ffmpeg's null muxer also complained of two frames whose 90 kHz
 * times fell on one tick of its own time base, which is no decode error (fresh6 of session 29).
 */
export async function vp8DecodeErrors(packets: readonly RtpPacket[]): Promise<{ readonly errors: string; readonly frames: number }> {
  const { ivf, frames } = vp8PacketsToIvf(packets);
  const dir = await mkdtemp(join(tmpdir(), 'vp8-decode-'));
  try {
    const file = join(dir, 'viewer.ivf');
    writeFileSync(file, ivf);
    const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file], {
      timeoutMs: 120_000,
    });
    return { errors: `${r.stderr.trim()}${r.code === 0 ? '' : ` (exit ${r.code ?? r.signal})`}`, frames };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Asserts that a viewer's VP8 decodes without an error and holds more than `minFrames` complete frames; `report`
 * gets the count (a test's diagnostic).
 */
export async function assertVp8Decodes(packets: readonly RtpPacket[], report: (line: string) => void, minFrames = 100): Promise<void> {
  const decoded = await vp8DecodeErrors(packets);
  report(`the viewer's video: ${decoded.frames} complete frames`);
  assert.equal(decoded.errors, '', 'no decode error');
  assert.ok(decoded.frames > minFrames, `${decoded.frames} frames`);
}
