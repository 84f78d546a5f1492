// reeltime's own publisher with `simulcast` (as `reeltime publish --simulcast`): the node keeps its two encodings
// apart, and WHEP viewers pinned to each layer get its picture size; a viewer that pins none starts on the larger.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { vp8KeyframeSize, type VideoSize } from '../../rtp-payload/index.ts';
import { startTestServer } from '../../testing/index.ts';
import { whepSubscribe } from '../client/index.ts';
import { startSyntheticPublisher } from './index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

test('a synthetic publisher with simulcast sends 640×360 and 320×180 encodings: layer=high, layer=low and no layer each get theirs', { timeout: 120_000 }, async (t) => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60_000 } } });
  const cname = 'own-simulcast';
  const pub = await startSyntheticPublisher({ baseUrl: s.url, appId: APP, cname, uid: 1, token: tok(cname, 1), codec: 'vp8', width: 640, height: 360, simulcast: true });
  try {
    await pub.ready;
    const sizeFor = async (layer: string | undefined, uid: number): Promise<VideoSize> => {
      const viewer = await whepSubscribe({
        endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=${uid}&publisher=1${layer ? `&layer=${layer}` : ''}`,
        token: tok(cname, uid, 2),
        kinds: ['video'],
      });
      try {
        await viewer.waitFor(() => viewer.packets.video.some((p) => vp8KeyframeSize(p.payload)), 30_000, `a keyframe (layer ${layer ?? 'auto'})`);
        return viewer.packets.video.map((p) => vp8KeyframeSize(p.payload)).find((v) => v)!;
      } finally {
        await viewer.close();
      }
    };
    const sizes = { high: await sizeFor('high', 2), low: await sizeFor('low', 3), auto: await sizeFor(undefined, 4) };
    t.diagnostic(JSON.stringify(sizes));
    assert.deepEqual(sizes.high, { width: 640, height: 360 });
    assert.deepEqual(sizes.low, { width: 320, height: 180 });
    assert.deepEqual(sizes.auto, { width: 640, height: 360 });
  } finally {
    await pub.stop();
    await s.close();
  }
});
