import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtpHeader, RtpPacket } from 'werift';
import { TrackFanout } from './forward.ts';
import type { TrackCodec } from './sdp.ts';
import { SimulcastFanout, SwitchingLayerView } from './simulcast.ts';

const VP8: TrackCodec = { mimeType: 'video/vp8', clockRate: 90_000, channels: undefined, fmtp: '' };

/** A VP8 keyframe packet of a picture size (payload descriptor, frame tag, start code, size). */
function keyframe(ssrc: number, seq: number, width: number, height: number): RtpPacket {
  const payload = Buffer.from([0x10, 0x50, 0x02, 0x00, 0x9d, 0x01, 0x2a, width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0, 0]);
  return new RtpPacket(new RtpHeader({ ssrc, sequenceNumber: seq, timestamp: seq * 3000, payloadType: 96, marker: true }), payload);
}

/** Two layers (rids `h` and `l`), the keyframe requests each got, and the fan-out over them. */
function twoLayers() {
  let now = 0;
  const requests: number[] = [];
  const layer = () => new TrackFanout('video', VP8, (ssrc) => requests.push(ssrc), () => now, 0);
  const high = layer();
  const low = layer();
  const simulcast = new SimulcastFanout(VP8, new Map([['h', high], ['l', low]]), () => now);
  high.push(keyframe(1, 1, 640, 360));
  low.push(keyframe(2, 1, 320, 180));
  return { simulcast, high, low, requests, tick: (ms: number) => (now += ms) };
}

test('a switching view forwards only the layer it chose, and asks the new one for a keyframe when it moves', () => {
  const { simulcast, high, low, requests } = twoLayers();
  const view = new SwitchingLayerView(simulcast, 'high');
  const got: number[] = [];
  const detach = view.addSink((p) => got.push(p.header.ssrc));
  high.push(keyframe(1, 2, 640, 360));
  low.push(keyframe(2, 2, 320, 180));
  assert.deepEqual(got, [1]);
  assert.equal(view.choose('high'), false, 'no move to where it is');
  assert.equal(view.choose('low'), true);
  assert.deepEqual(requests, [2], 'the low layer was asked for a keyframe');
  high.push(keyframe(1, 3, 640, 360));
  low.push(keyframe(2, 3, 320, 180));
  assert.deepEqual(got, [1, 2]);
  detach();
  low.push(keyframe(2, 4, 320, 180));
  assert.deepEqual(got, [1, 2], 'nothing after the last sink left');
});

test('fit: the smallest layer that covers the drawn size, never above the first choice', () => {
  const { simulcast } = twoLayers();
  const view = new SwitchingLayerView(simulcast, 'high');
  assert.equal(view.fit({ width: 320, height: 180 }), true);
  assert.equal(view.choice, 'low', 'a 320×180 region: the 320×180 layer covers it');
  view.fit({ width: 240, height: 135 });
  assert.equal(view.choice, 'low');
  view.fit({ width: 321, height: 180 });
  assert.equal(view.choice, 'high', 'one pixel wider: the low layer would be scaled up');
  view.fit({ width: 1280, height: 720 });
  assert.equal(view.choice, 'high', 'nothing covers it: the largest');
  const pinnedLow = new SwitchingLayerView(simulcast, 'low');
  pinnedLow.fit({ width: 1280, height: 720 });
  assert.equal(pinnedLow.choice, 'low', 'a recording of the low layer stays there');
});
