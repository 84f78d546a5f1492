// Whether a slicer has its stream from a picture it can start at (TrackPipeline.startedAtKeyframe): then the
// recorder asks the publisher for no keyframe of its own, whose arrival would make a libwebrtc sender drop the frames
// its pacer still queues (docs/recording-individual.md, issue 27). No ffmpeg: the packets are held before its start.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RtpTrackDescription } from './sdp.ts';
import { TrackPipeline } from './track-pipeline.ts';

const VP8: RtpTrackDescription = { codec: 'VP8', payloadType: 96, clockRate: 90000 };
const H264: RtpTrackDescription = { codec: 'H264', payloadType: 102, clockRate: 90000, fmtp: 'packetization-mode=1' };

function rtp(seq: number, payload: number[]): Buffer {
  const b = Buffer.alloc(12 + payload.length);
  b[0] = 0x80;
  b[1] = 96;
  b.writeUInt16BE(seq, 2);
  b.writeUInt32BE(seq * 6000, 4);
  b.writeUInt32BE(1234, 8);
  Buffer.from(payload).copy(b, 12);
  return b;
}
/** VP8: S=1, partition 0; the payload header's P bit 0 (a keyframe) or 1. */
const vp8 = (seq: number, key: boolean) => rtp(seq, [0x10, key ? 0x10 : 0x11, 0x02, 0x00]);

function firstPackets(track: RtpTrackDescription, packets: readonly Buffer[]): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'pipeline-start-'));
  try {
    const p = new TrackPipeline({ track, workDir: dir }, { onSlice: () => undefined });
    for (const packet of packets) p.push(packet);
    return p.startedAtKeyframe;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('startedAtKeyframe: a first packet that begins a VP8 keyframe, or the parameter sets before an H.264 IDR; not a delta frame, not after held packets overflowed', () => {
  assert.equal(firstPackets(VP8, [vp8(1, true), vp8(2, false)]), true);
  assert.equal(firstPackets(VP8, [vp8(1, false), vp8(2, true)]), false, 'the stream began mid-GOP (a resume after a break)');
  // H.264: an IDR slice (first_mb_in_slice 0), or a STAP-A of SPS and PPS as the SFU's gate sends before one.
  assert.equal(firstPackets(H264, [rtp(1, [0x65, 0x88, 0x80])]), true);
  assert.equal(firstPackets(H264, [rtp(1, [0x18, 0x00, 0x02, 0x67, 0x42, 0x00, 0x02, 0x68, 0xce])]), true);
  assert.equal(firstPackets(H264, [rtp(1, [0x41, 0x9a, 0x00])]), false, 'a non-IDR slice');
  // More packets than are held for ffmpeg's start: some never reached it.
  const many = [vp8(1, true), ...Array.from({ length: 2000 }, (_, i) => vp8(2 + i, false))];
  assert.equal(firstPackets(VP8, many), false);
});
