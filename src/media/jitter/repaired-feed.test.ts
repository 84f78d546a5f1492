import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { LossMeter } from './loss-meter.ts';
import { RepairedFeed } from './repaired-feed.ts';
import { rtpBytes } from './stream-repair.ts';

const KEY = Buffer.from([0x10, 0x00, 0x9d]);
const INTER = Buffer.from([0x10, 0x01, 0x00]);
const vp8 = (seq: number, frame: number, payload: Buffer) => rtpBytes({ payloadType: 96, marker: true, seq, timestamp: frame * 6000, ssrc: 5 }, payload);

test('a hole is given up by the timer; keyframe requests are rate-limited; the meter sees live and ended streams', () => {
  const clock = new ManualClock(1_000_000);
  const sent: number[] = [];
  let asked = 0;
  const meter = new LossMeter();
  const feed = new RepairedFeed({
    codec: 'VP8',
    clockRate: 90000,
    clock,
    send: (p) => sent.push(p.readUInt16BE(2)),
    requestKeyframe: () => asked++,
    bounds: { minMs: 50, maxMs: 400, maxPackets: 100 },
    meter,
  });
  // One packet per frame at 15 fps; frame 2 (seq 2) is lost.
  feed.push(vp8(0, 0, KEY));
  clock.advance(66);
  feed.push(vp8(1, 1, INTER));
  for (let f = 3; f <= 6; f++) {
    clock.advance(66);
    feed.push(vp8(f, f, INTER));
  }
  assert.deepEqual(sent, [0, 1], 'nothing after the hole once it is given up (the frames behind it reference it)');
  assert.equal(asked, 1, 'one keyframe request for the gap and the frames dropped within 500 ms');
  clock.advance(500);
  feed.push(vp8(7, 7, INTER));
  assert.equal(asked, 2, 'asked again after 500 ms while still waiting');
  clock.advance(66);
  feed.push(vp8(8, 8, KEY));
  assert.deepEqual(sent, [0, 1, 2], 'the keyframe goes on, numbered right after the last packet sent');
  assert.equal(meter.total('lost').video, 1);
  assert.equal(meter.total('keyframeRequests').video, 2);
  feed.close();
  assert.equal(meter.total('framesDropped').video, feed.stats.framesDropped);
  assert.ok(feed.stats.framesDropped >= 5);
});

test('the timer gives a hole up when no packet comes after the hold (media time already behind it)', () => {
  const clock = new ManualClock(0);
  const sent: number[] = [];
  const feed = new RepairedFeed({ codec: 'opus', clockRate: 48000, clock, send: (p) => sent.push(p.readUInt16BE(2)), bounds: { minMs: 50, maxMs: 400, maxPackets: 100 } });
  const opus = (seq: number) => rtpBytes({ payloadType: 111, marker: false, seq, timestamp: seq * 960, ssrc: 9 }, Buffer.from([0x78, 1]));
  feed.push(opus(1));
  for (const s of [3, 4, 5, 6]) feed.push(opus(s));
  assert.deepEqual(sent, [1]);
  clock.advance(49);
  assert.deepEqual(sent, [1]);
  clock.advance(1);
  assert.deepEqual(sent, [1, 2, 3, 4, 5, 6], 'seq 2 concealed at the deadline, without waiting for another packet');
  assert.equal(feed.stats.concealed, 1);
  feed.close();
});
