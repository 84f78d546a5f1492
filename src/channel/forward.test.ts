import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startTestServer } from '../testing/index.ts';
import { whepSubscribe } from './client/whep-client.ts';
import { startSyntheticPublisher } from './publisher/synthetic.ts';
import { decodePixel, firstFramePackets, frameFile } from './testing/decode.ts';
import { startsKeyframe } from './keyframe.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

for (const [codec, color, expect] of [
  ['vp8', 'red', [255, 0, 0]],
  ['h264', 'blue', [0, 0, 255]],
] as const) {
  test(`synthetic ${codec} publisher -> SFU -> WHEP subscriber: keyframe first, colour ${color} decodes`, async () => {
    const s = await startTestServer();
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
        // The PLI crosses RTCP asynchronously; a periodic keyframe can reach the viewer first.
        await sub.waitFor(() => plis >= 1, 15000, 'the publisher was asked for a keyframe when the subscriber joined');
        const first = sub.packets.video[0]!;
        assert.ok(startsKeyframe(codec, first.payload), 'the first video packet starts a keyframe');
        const f = frameFile(codec, firstFramePackets(sub.packets.video));
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
