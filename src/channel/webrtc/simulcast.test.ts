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

test('ranking: a paused encoding is left within about half a second and taken again 300 ms after it resumes; a stall that holds both up moves nothing', () => {
  const { simulcast, high, low, tick } = twoLayers();
  let seq = 10;
  /** `ms` of both layers (or one) sending a packet each 33 ms. */
  const send = (ms: number, layers: readonly TrackFanout[]) => {
    for (let t = 0; t < ms; t += 33) {
      tick(33);
      seq++;
      for (const l of layers) l.push(keyframe(l === high ? 1 : 2, seq, l === high ? 640 : 320, l === high ? 360 : 180));
    }
  };
  send(1000, [high, low]);
  assert.equal(simulcast.layerFor('high'), high);
  assert.equal(simulcast.layerFor('low'), low);
  // The sender pauses its larger encoding.
  send(400, [low]);
  assert.equal(simulcast.layerFor('high'), high, 'not yet: 400 ms of quiet may be anything');
  send(200, [low]);
  assert.equal(simulcast.layerFor('high'), low, 'paused after half a second of quiet beside a sending layer');
  assert.equal(simulcast.layerFor('low'), low);
  send(100, [high, low]);
  assert.equal(simulcast.layerFor('high'), low, 'not yet: a frame now and then is no resume');
  send(300, [high, low]);
  assert.equal(simulcast.layerFor('high'), high, 'resumed after 300 ms of sending');
  // This process stalls 1.5 s, then both layers' packets arrive together.
  tick(1500);
  send(33, [high, low]);
  assert.equal(simulcast.layerFor('high'), high, 'a stall of everything is no pause');
  assert.equal(simulcast.layerFor('low'), low);
  // Another stall, after which the smaller encoding's packets come 100 ms after the larger one's.
  tick(1500);
  send(100, [high]);
  send(400, [high, low]);
  assert.equal(simulcast.layerFor('low'), low, 'the smaller encoding still sends: the low choice stays on it');
});

test('ranking: before the larger encoding starts, both choices get the one that is sending', () => {
  let now = 0;
  const layer = () => new TrackFanout('video', VP8, () => undefined, () => now, 0);
  const [high, low] = [layer(), layer()];
  const simulcast = new SimulcastFanout(VP8, new Map([['h', high], ['l', low]]), () => now);
  for (let seq = 1; seq < 40; seq++) {
    now += 33;
    low.push(keyframe(2, seq, 320, 180));
  }
  assert.equal(simulcast.layerFor('high'), low);
  assert.equal(simulcast.layerFor('low'), low);
});

test('ranking: an encoding that sends a frame a second beside one at full rate stays paused, with no flapping', () => {
  const { simulcast, high, low, tick } = twoLayers();
  let seq = 10;
  const picks: TrackFanout[] = [];
  for (let t = 0; t < 5000; t += 33) {
    tick(33);
    seq++;
    low.push(keyframe(2, seq, 320, 180));
    if (t % 1000 < 33) for (let i = 0; i < 5; i++) high.push(keyframe(1, seq, 640, 360)); // one frame a second, five packets
    if (t > 1000) picks.push(simulcast.layerFor('high'));
  }
  assert.ok(picks.every((l) => l === low), `high pointed at the 640×360 layer ${picks.filter((l) => l === high).length} times`);
});
