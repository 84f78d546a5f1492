import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameIsKey } from '../../rtp-payload/index.ts';
import { parseRtp, rtpBytes, StreamRepair } from './stream-repair.ts';

const VP8_KEY = Buffer.from([0x10, 0x00, 0x9d, 0x01, 0x2a]); // S=1 PID=0, frame tag P=0
const VP8_INTER = Buffer.from([0x10, 0x01, 0x00]); // P=1
const VP8_MORE = Buffer.from([0x00, 0xaa]); // not a partition start
const pkt = (seq: number, ts: number, payload: Buffer, marker = false) => rtpBytes({ payloadType: 96, marker, seq, timestamp: ts, ssrc: 7 }, payload);
const seqs = (out: readonly Buffer[]) => out.map((b) => b.readUInt16BE(2));

/** Frames of two packets each: [first, second+marker]. */
function frame(seq: number, ts: number, first: Buffer): Buffer[] {
  return [pkt(seq, ts, first), pkt(seq + 1, ts, VP8_MORE, true)];
}

test('VP8: whole frames pass unchanged; a lost packet drops frames until a whole keyframe, numbers stay continuous', () => {
  const r = new StreamRepair('VP8', 90000);
  const out: Buffer[] = [];
  let wanted = 0;
  const feed = (b: Buffer, now: number) => {
    const x = r.push(b, now);
    out.push(...x.out);
    if (x.wantKeyframe) wanted++;
  };
  for (const b of frame(1, 0, VP8_KEY)) feed(b, 0);
  for (const b of frame(3, 6000, VP8_INTER)) feed(b, 66);
  assert.deepEqual(seqs(out), [1, 2, 3, 4]);
  // Frame 6 (seqs 5, 6): 5 never comes.
  feed(pkt(6, 12000, VP8_MORE, true), 133);
  for (const b of frame(7, 18000, VP8_INTER)) feed(b, 200);
  assert.ok(wanted >= 1, 'the hole is given up (50 ms on the wall clock and in media time): a keyframe is wanted');
  for (const b of frame(9, 24000, VP8_INTER)) feed(b, 266);
  for (const b of frame(11, 30000, VP8_KEY)) feed(b, 333);
  for (const b of frame(13, 36000, VP8_INTER)) feed(b, 400);
  // 6 (rest of the broken frame), 7-8 and 9-10 (inter frames after the loss) never reach the slicer.
  assert.deepEqual(seqs(out), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(out.slice(4).map((b) => parseRtp(b)!.timestamp), [30000, 30000, 36000, 36000]);
  assert.equal(r.stats.lost, 1);
  assert.ok(r.stats.framesDropped >= 3);
  assert.ok(wanted >= 1);
});

test('VP8: a retransmission inside the hold time loses nothing', () => {
  const r = new StreamRepair('VP8', 90000);
  const out: Buffer[] = [];
  for (const b of frame(1, 0, VP8_KEY)) out.push(...r.push(b, 0).out);
  out.push(...r.push(pkt(4, 6000, VP8_MORE, true), 60).out);
  out.push(...r.push(pkt(3, 6000, VP8_INTER), 75).out);
  assert.deepEqual(seqs(out), [1, 2, 3, 4]);
  assert.equal(r.stats.framesDropped, 0);
});

test('H.264: the keyframe is a frame holding an IDR start (single NAL, STAP-A or FU-A start)', () => {
  const fuIdrStart = Buffer.from([0x7c, 0x85, 0x88]);
  const fuIdrMiddle = Buffer.from([0x7c, 0x05, 0x00]);
  const stapSpsPpsIdr = Buffer.from([0x78, 0x00, 0x02, 0x67, 0x42, 0x00, 0x02, 0x68, 0xce, 0x00, 0x02, 0x65, 0x88]);
  const nonIdr = Buffer.from([0x41, 0x9a]);
  assert.equal(frameIsKey('H264', [fuIdrStart, fuIdrMiddle]), true);
  assert.equal(frameIsKey('H264', [fuIdrMiddle]), false);
  assert.equal(frameIsKey('H264', [stapSpsPpsIdr]), true);
  assert.equal(frameIsKey('H264', [Buffer.from([0x65, 0x88])]), true);
  assert.equal(frameIsKey('H264', [nonIdr]), false);
  assert.equal(frameIsKey('VP8', [VP8_KEY]), true);
  assert.equal(frameIsKey('VP8', [VP8_INTER]), false);
  assert.equal(frameIsKey('VP8', [Buffer.from([0x90, 0x80, 0x81, 0x02, 0x00])]), true, 'extended descriptor, 15-bit picture id');
});

test('Opus: a packet lost for good becomes a TOC-only packet with its number and timestamp', () => {
  const r = new StreamRepair('opus', 48000);
  const toc = 0x78 | 0x01; // CELT-only FB 20 ms, code 1 (two frames)
  const a = (seq: number) => rtpBytes({ payloadType: 111, marker: false, seq, timestamp: seq * 960, ssrc: 9 }, Buffer.from([toc, 1, 2, 3]));
  const out: Buffer[] = [];
  for (const s of [10, 11, 14, 15, 16, 17]) out.push(...r.push(a(s), s * 20).out);
  assert.deepEqual(seqs(out), [10, 11, 12, 13, 14, 15, 16, 17]);
  const made = out.slice(2, 4).map((b) => parseRtp(b)!);
  assert.deepEqual(made.map((p) => p.timestamp), [12 * 960, 13 * 960]);
  assert.deepEqual(made.map((p) => [...p.payload]), [[0x78], [0x78]]);
  assert.equal(r.stats.concealed, 2);
});
