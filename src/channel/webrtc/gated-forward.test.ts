import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtpHeader, RtpPacket } from 'werift';
import { ManualClock } from '../../clock/index.ts';
import { TrackFanout } from './forward.ts';
import { attachGated, type GatedPacket } from './gated-forward.ts';
import type { TrackCodec } from './sdp.ts';

const VP8: TrackCodec = { mimeType: 'video/vp8', clockRate: 90_000, channels: undefined, fmtp: '' };

/** A VP8 packet: a keyframe's first (S bit, PID 0, P bit 0), a delta frame's first (P bit 1) or a frame's later one. */
const vp8 = (seq: number, kind: 'key' | 'delta' | 'middle') =>
  new RtpPacket(
    new RtpHeader({ ssrc: 5, sequenceNumber: seq, timestamp: Math.floor(seq / 3) * 6000, payloadType: 96, marker: false }),
    kind === 'middle' ? Buffer.from([0x00, 0x00]) : Buffer.from([0x10, kind === 'key' ? 0x00 : 0x01]),
  );

test('a subscriber starts at no keyframe whose repair came after the rest of it: it waits for the next one', () => {
  const fan = new TrackFanout('video', VP8, () => undefined, () => 0);
  // The keyframe's first packet (10) was lost; 11 and 12 went by before the subscriber attached.
  fan.push(vp8(9, 'middle'));
  fan.push(vp8(11, 'middle'));
  fan.push(vp8(12, 'middle'));
  const got: GatedPacket[] = [];
  attachGated(fan, new ManualClock(0), (p) => got.push(p));
  const behind: boolean[] = [];
  fan.addSink((_p, b) => behind.push(b));
  fan.push(vp8(10, 'key')); // the NACK repair
  fan.push(vp8(13, 'delta'));
  assert.deepEqual(behind, [true, false], 'the repair is behind, the next packet is not');
  assert.equal(got.length, 0, 'nothing opened on the repaired keyframe (11 and 12 would never come)');
  fan.push(vp8(15, 'key'));
  fan.push(vp8(14, 'middle')); // reordered: behind, but the subscriber's stream has started, so it fills a hole
  fan.push(vp8(16, 'middle'));
  assert.deepEqual(got.map((p) => p.sequenceNumber), [15, 14, 16], 'the next keyframe opens it; later repairs go through');
});

test('a keyframe that arrives in order opens the subscriber at once, and numbers wrap around without a false "behind"', () => {
  const fan = new TrackFanout('video', VP8, () => undefined, () => 0);
  const got: number[] = [];
  const behind: boolean[] = [];
  attachGated(fan, new ManualClock(0), (p) => got.push(p.sequenceNumber));
  fan.addSink((_p, b) => behind.push(b));
  fan.push(vp8(65_534, 'key'));
  fan.push(vp8(65_535, 'middle'));
  fan.push(vp8(0, 'delta'));
  assert.deepEqual(got, [65_534, 65_535, 0]);
  assert.deepEqual(behind, [false, false, false]);
});
