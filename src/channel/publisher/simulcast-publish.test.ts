// reeltime's own publisher with `simulcast`, in process and as `reeltime publish --simulcast`: the node keeps its two
// encodings apart, and WHEP viewers pinned to each layer get its picture size; a viewer that pins none starts on the
// larger.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { vp8KeyframeSize, type VideoSize } from '../../rtp-payload/index.ts';
import { startTestServer, waitUntil } from '../../testing/index.ts';
import type { ChannelModule } from '../module.ts';
import { whepSubscribe } from '../client/index.ts';
import { startSyntheticPublisher } from './index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const root = new URL('../../../', import.meta.url).pathname;
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);

/** The picture size of the first keyframe a WHEP viewer of uid 1 gets, pinned to `layer` (or not). */
async function keyframeSize(baseUrl: string, cname: string, layer: string | undefined, uid: number): Promise<VideoSize> {
  const viewer = await whepSubscribe({
    endpoint: `${baseUrl}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=${uid}&publisher=1${layer ? `&layer=${layer}` : ''}`,
    token: tok(cname, uid, 2),
    kinds: ['video'],
  });
  try {
    await viewer.waitFor(() => viewer.packets.video.some((p) => vp8KeyframeSize(p.payload)), 30_000, `a keyframe (layer ${layer ?? 'auto'})`);
    return viewer.packets.video.map((p) => vp8KeyframeSize(p.payload)).find((v) => v)!;
  } finally {
    await viewer.close();
  }
}

/** layer=high, layer=low and no layer, each from a viewer of its own. */
async function layerSizes(baseUrl: string, cname: string) {
  return {
    high: await keyframeSize(baseUrl, cname, 'high', 2),
    low: await keyframeSize(baseUrl, cname, 'low', 3),
    auto: await keyframeSize(baseUrl, cname, undefined, 4),
  };
}

const EXPECTED = { high: { width: 640, height: 360 }, low: { width: 320, height: 180 }, auto: { width: 640, height: 360 } };

test('a synthetic publisher with simulcast sends 640×360 and 320×180 encodings: layer=high, layer=low and no layer each get theirs', { timeout: 120_000 }, async (t) => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60_000 } } });
  const cname = 'own-simulcast';
  const pub = await startSyntheticPublisher({ baseUrl: s.url, appId: APP, cname, uid: 1, token: tok(cname, 1), codec: 'vp8', width: 640, height: 360, simulcast: true });
  try {
    await pub.ready;
    const sizes = await layerSizes(s.url, cname);
    t.diagnostic(JSON.stringify(sizes));
    assert.deepEqual(sizes, EXPECTED);

    // A viewer that pins no layer and says it draws the video at 320×180 (as a mix recorder on another node does
    // through its WHEP link) gets the low layer; at 640×360 the high one again.
    const viewer = await whepSubscribe({ endpoint: `${s.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=5&publisher=1`, token: tok(cname, 5, 2), kinds: ['video'], keep: 0 });
    try {
      let latest: VideoSize | undefined;
      viewer.onRtp((_kind, p) => void (latest = vp8KeyframeSize(p.payload) ?? latest));
      await waitUntil(() => latest?.width === 640, { timeoutMs: 30_000, what: 'a 640×360 keyframe first' });
      await viewer.fitVideo({ width: 320, height: 180 });
      await waitUntil(() => latest?.width === 320, { timeoutMs: 30_000, what: 'a 320×180 keyframe after fitting 320×180' });
      await viewer.fitVideo({ width: 640, height: 360 });
      await waitUntil(() => latest?.width === 640, { timeoutMs: 30_000, what: 'a 640×360 keyframe after fitting 640×360' });
      // Bad input: a size that is no size, a session that is not there.
      const fit = (location: string, body: unknown) => fetch(`${location}/fit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const bad = await fit(viewer.location, { width: 0, height: 180 });
      assert.equal(bad.status, 400);
      assert.deepEqual(await bad.json(), { error: 'bad_request', reason: 'width and height must be whole numbers of pixels from 1 to 8192' });
      assert.equal((await fit(`${s.url}/rtc/v1/sessions/nope`, { width: 320, height: 180 })).status, 404);
    } finally {
      await viewer.close();
    }
  } finally {
    await pub.stop();
    await s.close();
  }
});

test('`reeltime publish --simulcast` (the CLI, a process of its own) sends the same two encodings', { timeout: 120_000 }, async (t) => {
  const s = await startTestServer({ values: { channel: { idleTimeoutMs: 60_000 } } });
  const channel = s.modules.find((m) => m.name === 'channel') as ChannelModule;
  const cname = 'cli-simulcast';
  const child = spawn(process.execPath, [`${root}bin/reeltime.mjs`, 'publish', '--server', s.url, '--channel', cname, '--uid', '1', '--seconds', '120', '--simulcast'], {
    env: { ...process.env, REELTIME_DATA_DIR: s.dataDir, REELTIME_APP_ID: APP, REELTIME_APP_CERTIFICATE: CERT },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: the kill below reaches its ffmpeg too.
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    // Joined with its tracks, and it has said so (its line comes once the WHIP session is up).
    await waitUntil(() => channel.snapshot(APP, cname).participants.some((p) => p.uid === 1 && p.tracks.length === 2) && out.includes('publishing uid 1'), {
      timeoutMs: 60_000,
      what: () => `the CLI publisher to publish (its output: ${out})`,
    });
    assert.match(out, /publishing uid 1 to channel "cli-simulcast" \(vp8, simulcast,/);
    const sizes = await layerSizes(s.url, cname);
    t.diagnostic(JSON.stringify(sizes));
    assert.deepEqual(sizes, EXPECTED);
  } finally {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await s.close();
  }
});
