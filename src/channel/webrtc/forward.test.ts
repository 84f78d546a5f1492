import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { RtpHeader, RtpPacket } from 'werift';
import { startTestServer } from '../../testing/index.ts';
import { whepSubscribe } from '../client/index.ts';
import { startSyntheticPublisher } from '../publisher/index.ts';
import { decodePixel, firstFramePackets, frameFile } from '../testing/decode.ts';
import { ManualClock } from '../../clock/index.ts';
import { TrackFanout } from './forward.ts';
import { attachGated } from './gated-forward.ts';
import { h264Nals, stapA, startsKeyframe } from '../../rtp-payload/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

const VP8 = { mimeType: 'video/vp8', clockRate: 90000, channels: undefined, fmtp: '' };
const OPUS = { mimeType: 'audio/opus', clockRate: 48000, channels: 2, fmtp: '' };
const rtp = (ssrc: number, seq: number) =>
  new RtpPacket(new RtpHeader({ ssrc, sequenceNumber: seq, payloadType: 96 }), Buffer.from([0x10, 0x00]));

test('fan-out: a keyframe request before the first packet waits for its SSRC; PLIs coalesce per interval, the held ones sent when it has passed; audio never asks; H.264 parameter sets kept', () => {
  let now = 0;
  const plis: number[] = [];
  const video = new TrackFanout('video', VP8, (ssrc) => plis.push(ssrc), () => now);
  const got: number[] = [];
  video.addSink((p) => got.push(p.header.sequenceNumber));
  // A viewer connects before the publisher's media reached the SFU: nothing to address yet, nothing lost.
  video.requestKeyframe();
  assert.deepEqual(plis, []);
  video.push(rtp(1234, 1));
  assert.deepEqual(plis, [1234], 'the pending request goes out with the first packet');
  assert.deepEqual(got, [1]);
  video.push(rtp(1234, 2));
  assert.deepEqual(plis, [1234], 'sent once');
  now = 299;
  video.requestKeyframe();
  assert.deepEqual(plis, [1234], 'coalesced within 300 ms');
  now = 300;
  video.requestKeyframe();
  video.requestKeyframe();
  assert.deepEqual(plis, [1234, 1234]);
  video.push(rtp(777, 3)); // the publisher's SSRC changed (encoder restart)
  now = 700;
  video.requestKeyframe();
  assert.deepEqual(plis, [1234, 1234, 777]);
  // Held back, not dropped (a loss given up just after a keyframe was asked for): the requests within the interval
  // go as one, with the first packet after it.
  now = 800;
  video.requestKeyframe();
  video.requestKeyframe();
  video.push(rtp(777, 4));
  assert.deepEqual(plis, [1234, 1234, 777], 'held within 300 ms');
  now = 1000;
  video.push(rtp(777, 5));
  video.push(rtp(777, 6));
  assert.deepEqual(plis, [1234, 1234, 777, 777], 'the held requests sent once, with the first packet after 300 ms');

  const h264 = new TrackFanout('video', { ...VP8, mimeType: 'video/h264' }, () => undefined, () => now);
  assert.equal(h264.parameterSets(), undefined);
  const sps = Buffer.from([0x67, 0x42]);
  const pps = Buffer.from([0x68, 0xce]);
  const seen: (Buffer | undefined)[] = [];
  h264.addSink(() => seen.push(h264.parameterSets()?.pps));
  h264.push(new RtpPacket(new RtpHeader({ ssrc: 1, sequenceNumber: 1 }), stapA([sps, pps])));
  assert.deepEqual(seen, [pps], "a packet's parameter sets are kept before its sinks run");
  assert.equal(video.parameterSets(), undefined, 'VP8 has none');

  const audioPlis: number[] = [];
  const audio = new TrackFanout('audio', OPUS, (ssrc) => audioPlis.push(ssrc), () => now);
  audio.requestKeyframe();
  audio.push(rtp(5, 1));
  assert.deepEqual(audioPlis, []);
});

for (const [codec, color, expect] of [
  ['vp8', 'red', [255, 0, 0]],
  ['h264', 'blue', [0, 0, 255]],
] as const) {
  test(`synthetic ${codec} publisher -> SFU -> WHEP subscriber: keyframe first, colour ${color} decodes`, async () => {
    // Dead-peer timeouts are not under test here (membership.test.ts covers them).
    const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60000 } } });
    const cname = `fwd-${codec}`;
    const pub = await startSyntheticPublisher({ baseUrl: s.url, appId: APP, cname, uid: 1, token: tok(cname, 1), color, codec });
    let plis = 0;
    pub.whip.onKeyframeRequest(() => plis++);
    try {
      await pub.ready;
      const sub = await whepSubscribe({
        endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=2&publisher=1`,
        token: tok(cname, 2, 2),
      });
      try {
        await sub.ready;
        await sub.waitFor(() => sub.counts.audio > 20 && firstFramePackets(sub.packets.video).length > 0, 30000, 'media');
        assert.equal(sub.codecs.get('video'), codec);
        // The join's PLI is sent even when the encoder's own keyframe opened the viewer first (the fan-out test
        // below pins why), so this waits for an event that always comes, not for a race to be won.
        await sub.waitFor(() => plis >= 1, 15000, 'the publisher was asked for a keyframe when the subscriber joined');
        const frame = firstFramePackets(sub.packets.video);
        frame.forEach((p, i) => assert.equal(p.header.sequenceNumber, (frame[0]!.header.sequenceNumber + i) & 0xffff, 'no gap'));
        if (codec === 'h264') {
          // The parameter sets the decoder needs come first (in band or injected), then the IDR's first slice.
          const units = frame.flatMap((p) => h264Nals(p.payload));
          const slice = units.findIndex((n) => n.type === 1 || n.type === 5);
          assert.ok(units[slice]?.type === 5 && units[slice].firstSlice, "the first slice is an IDR's first");
          const before = units.slice(0, slice).map((n) => n.type);
          assert.ok(before.includes(7) && before.includes(8), `SPS and PPS before it (${before})`);
        } else {
          assert.ok(startsKeyframe(codec, frame[0]!.payload), 'the first video packet starts a keyframe');
        }
        const f = frameFile(codec, frame);
        assert.ok(f.isKeyframe);
        const [r, g, b] = await decodePixel(f.data, f.format);
        for (const [got, want] of [[r, expect[0]], [g, expect[1]], [b, expect[2]]] as const) {
          assert.ok(Math.abs(got - want) < 40, `pixel ${[r, g, b]} is ${color}`);
        }
      } finally {
        await sub.close();
      }
    } finally {
      await pub.stop();
      await s.close();
    }
  });
}

test('fan-out of a publisher that cannot be asked for keyframes: no requests, and a gated subscriber starts at once from the cached GOP', () => {
  const plis: number[] = [];
  const video = new TrackFanout('video', VP8, (ssrc) => plis.push(ssrc), () => 0, 300, () => undefined, false);
  const vp8 = (seq: number, key: boolean) =>
    new RtpPacket(new RtpHeader({ ssrc: 9, sequenceNumber: seq, timestamp: seq * 6000, payloadType: 96 }), Buffer.from([0x10, key ? 0x00 : 0x01]));
  video.push(vp8(1, false));
  video.push(vp8(2, true));
  video.push(vp8(3, false));
  video.requestKeyframe();
  video.push(vp8(4, false));
  assert.deepEqual(plis, [], 'no PLI to a publisher that did not negotiate one');

  const plain: number[] = [];
  video.addSink((p) => plain.push(p.header.sequenceNumber));
  const gated: number[] = [];
  const { gate, startFromGop } = attachGated(video, new ManualClock(0), (p) => gated.push(p.timestamp / 6000));
  assert.equal(gate.waiting, true, 'attached: waits until it can receive');
  startFromGop();
  assert.equal(gate.waiting, false, 'opened by the cached keyframe');
  assert.deepEqual(gated, [2, 3, 4], 'the GOP so far, from its keyframe, at once');
  video.push(vp8(5, false));
  assert.deepEqual(gated, [2, 3, 4, 5], 'then the live packets');
  assert.deepEqual(plain, [5], 'a plain sink gets live packets only');
  startFromGop();
  assert.deepEqual(gated, [2, 3, 4, 5], 'an open gate is not given the GOP again');

  const asking = new TrackFanout('video', VP8, () => undefined, () => 0);
  asking.push(vp8(2, true));
  const none: number[] = [];
  const { gate: waiting, startFromGop: fromNothing } = attachGated(asking, new ManualClock(0), (p) => none.push(p.sequenceNumber));
  fromNothing();
  assert.equal(waiting.waiting, true, 'a publisher that answers PLIs keeps no GOP: its viewer asks for a keyframe');
  assert.deepEqual(none, []);
});
