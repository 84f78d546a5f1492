import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RtpTrackDescription } from '../../../media/index.ts';
import { PacketListeners } from './media-subscription.ts';

const VP8: RtpTrackDescription = { codec: 'VP8', payloadType: 96, clockRate: 90_000 };

test('packets that come before a subscription has a listener are held and given to the first one, in order, then passed on', () => {
  const fan = new PacketListeners();
  fan.emit('video', VP8, Buffer.from([1]));
  fan.emit('video', VP8, Buffer.from([2]));
  const first: number[] = [];
  const second: number[] = [];
  fan.add((_k, _t, p) => first.push(p[0]!));
  assert.deepEqual(first, [1, 2], 'the stream from its start (a keyframe), not from the listener on');
  fan.add((_k, _t, p) => second.push(p[0]!));
  fan.emit('video', VP8, Buffer.from([3]));
  assert.deepEqual(first, [1, 2, 3]);
  assert.deepEqual(second, [3], 'a later listener gets what comes from then on');
});

test('a subscription nobody listens to holds its newest packets only, an unbroken run', () => {
  const fan = new PacketListeners();
  for (let i = 0; i < 2500; i++) fan.emit('audio', VP8, Buffer.from([i >> 8, i & 0xff]));
  const got: number[] = [];
  fan.add((_k, _t, p) => got.push(p.readUInt16BE(0)));
  assert.equal(got.length, 2000);
  assert.deepEqual([got[0], got.at(-1)], [500, 2499]);
});
