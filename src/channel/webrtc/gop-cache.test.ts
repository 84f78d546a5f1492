import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GopCache } from './gop-cache.ts';

/** A VP8 packet: the payload descriptor's S bit and PID 0, then a keyframe (P bit 0) or a delta frame's first byte. */
const vp8 = (ssrc: number, seq: number, kind: 'key' | 'delta' | 'middle') => ({
  header: { ssrc, timestamp: seq * 3000 },
  seq,
  payload: kind === 'middle' ? Buffer.from([0x00, 0x00]) : Buffer.from([0x10, kind === 'key' ? 0x00 : 0x01]),
  serializeSize: 1000,
});
const seqs = (c: GopCache<ReturnType<typeof vp8>>) => c.packets().map((p) => p.seq);

test('GOP cache: keeps the packets from the latest keyframe, starts again at a new stream, gives up past its size', () => {
  const c = new GopCache<ReturnType<typeof vp8>>('vp8', 5000);
  c.push(vp8(1, 1, 'delta'));
  assert.deepEqual(seqs(c), [], 'nothing before the first keyframe');
  c.push(vp8(1, 2, 'key'));
  c.push(vp8(1, 3, 'middle'));
  c.push(vp8(1, 4, 'delta'));
  assert.deepEqual(seqs(c), [2, 3, 4]);
  c.push(vp8(1, 5, 'key'));
  c.push(vp8(1, 6, 'delta'));
  assert.deepEqual(seqs(c), [5, 6], 'a keyframe starts the GOP again');
  c.push(vp8(2, 100, 'delta'));
  assert.deepEqual(seqs(c), [], 'a new SSRC (a new stream) empties it until its keyframe');
  c.push(vp8(2, 101, 'key'));
  for (let s = 102; s <= 105; s++) c.push(vp8(2, s, 'delta'));
  assert.deepEqual(seqs(c), [101, 102, 103, 104, 105], 'five packets of 1000 bytes: at the bound');
  c.push(vp8(2, 106, 'delta'));
  assert.deepEqual(seqs(c), [], 'past the bound: nothing kept (a viewer waits for the next keyframe)');
  c.push(vp8(2, 107, 'delta'));
  assert.deepEqual(seqs(c), [], 'and nothing until that keyframe');
  c.push(vp8(2, 108, 'key'));
  assert.deepEqual(seqs(c), [108]);
});

test('GOP cache: an H.264 GOP starts with its keyframe\'s whole access unit, the parameter sets sent before the IDR included', () => {
  const nal = (type: number, ts: number, seq: number, firstSlice = true) => ({
    header: { ssrc: 7, timestamp: ts },
    seq,
    // A single NAL unit; a slice's header starts with first_mb_in_slice in Exp-Golomb (a 1 bit: 0, the first slice).
    payload: Buffer.from([0x60 | type, firstSlice ? 0x80 : 0x40]),
    serializeSize: 100,
  });
  const c = new GopCache<ReturnType<typeof nal>>('h264');
  c.push(nal(1, 0, 1)); // a P slice of an earlier picture
  c.push(nal(7, 3000, 2)); // SPS
  c.push(nal(8, 3000, 3)); // PPS
  c.push(nal(5, 3000, 4)); // the IDR's first slice, same timestamp
  c.push(nal(5, 3000, 5, false));
  c.push(nal(1, 6000, 6));
  assert.deepEqual(c.packets().map((p) => p.seq), [2, 3, 4, 5, 6]);
  c.push(nal(7, 9000, 7)); // parameter sets of a picture that turns out not to be a keyframe
  c.push(nal(1, 9000, 8));
  assert.deepEqual(c.packets().map((p) => p.seq), [2, 3, 4, 5, 6, 7, 8]);
});
