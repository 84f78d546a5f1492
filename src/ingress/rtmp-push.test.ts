// ffmpeg pushes over RTMP as OBS does (x264 + AAC, a stream key); the ingress publishes it into the channel, where an
// individual recording takes it. Heavy: a live x264 encoder, the ingest ffmpeg, the recorder (scripts/test-lanes.mjs).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChannelModule } from '../channel/index.ts';
import { whepSubscribe } from '../channel/client/index.ts';
import { decodePixel, firstFramePackets, frameFile } from '../channel/testing/decode.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { decodeMono, dominantFrequency, pixelAt } from '../media/capture/testing/media-checks.ts';
import { runChild, spawnChild } from '../process/index.ts';
import { APP, AUTH, rtcToken, startHarness, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys, probe, slicesWritten } from '../recorders/individual/testing/media-checks.ts';
import { openTestDatabase, waitUntil } from '../testing/index.ts';
import { IngressStore } from './store.ts';
import { joinedHow, obsLike } from './testing.ts';

interface IngressBody {
  ingressId: string;
  state: string;
  error?: string;
  push: { server: string; streamKey: string; url: string };
}

test('an RTMP push with the stream key joins the channel as the ingress uid, H.264 + Opus; a recording of it has its colour and tone', async (t) => {
  const logLines: string[] = [];
  const h = await startHarness({ env: { REELTIME_INGRESS_RTMP_PORT: '0' }, recording: { individualSliceSeconds: 3 }, logLines });
  t.after(() => h.close());
  const channel = h.server.modules.find((m) => m.name === 'channel') as ChannelModule;
  const cname = 'ingest-rtmp';
  const created = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '4242', kind: 'rtmp' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const ingress = created.body as unknown as IngressBody;
  const state = async () => (await h.api('GET', `/v1/apps/${APP}/ingress/${ingress.ingressId}`)).body as unknown as IngressBody;
  const participant = () => channel.snapshot(APP, cname).participants.find((p) => p.uid === 4242);

  // A wrong key and a made-up one are refused before any media: ffmpeg fails, nobody joins.
  for (const key of [`${ingress.ingressId}.not-the-secret`, 'in_000000000000000000.x']) {
    const r = await runChild(FFMPEG_BIN, obsLike(`${ingress.push.server}/${key}`, { seconds: 2 }));
    assert.notEqual(r.code, 0, `key ${key} must be refused`);
  }
  assert.equal(participant(), undefined);
  assert.equal((await state()).state, 'waiting');

  const push = spawnChild(FFMPEG_BIN, obsLike(ingress.push.url), { stdio: ['ignore', 'ignore', 'pipe'] });
  let pushErr = '';
  push.stderr!.on('data', (d: Buffer) => (pushErr += d.toString()));
  t.after(() => push.kill('SIGKILL'));
  const joined = await waitUntil(() => (participant()?.tracks.length === 2 ? participant() : undefined), {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: () => `uid 4242 publishing audio and video (ingress ${JSON.stringify(channel.snapshot(APP, cname))}; pusher: ${pushErr})`,
  });
  assert.deepEqual(joined.tracks.map((tr) => tr.codec).sort(), ['audio/opus', 'video/h264']);
  // Without Redis every channel is in this process: ffmpeg's RTP goes straight into the SFU (ingress.mediaPath auto).
  assert.equal(joinedHow(logLines, 4242), 'in-process');
  await waitUntil(async () => (await state()).state === 'publishing', { timeoutMs: 10_000, intervalMs: 100, what: 'state publishing' });
  assert.match(await (await fetch(`${h.server.url}/metrics`)).text(), /^reeltime_ingress_publishing\{kind="rtmp"\} 1$/m);

  const { resourceId, sid } = await h.startRecording(cname, '9301', {
    token: rtcToken(cname, 9301, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['mp4'] },
  });
  const workDir = join(h.server.dataDir, 'recorder', 'individual', sid);
  await waitUntil(() => slicesWritten(workDir, 1000).length >= 6, { timeoutMs: 90_000, intervalMs: 250, what: 'local slices of the ingress' });
  const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9301', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const mp4 = bucketKeys(h.bucketDir).find((k) => k.endsWith('.mp4'));
  assert.ok(mp4, `an MP4 in the bucket: ${bucketKeys(h.bucketDir).join(', ')}`);
  const file = join(h.bucketDir, mp4);
  const p = await probe(file);
  assert.ok(p.codecs.includes('h264'), `codecs ${p.codecs}`);
  assert.equal(p.width, 640);
  const [r, g, b] = await pixelAt(file, 320, 180);
  assert.ok(b > 200 && r < 60 && g < 60, `blue expected, got ${[r, g, b]}`);
  const hz = dominantFrequency(await decodeMono(file));
  assert.ok(Math.abs(hz - 880) <= 5, `880 Hz expected, got ${hz}`);

  // The source stops: its participant leaves and the ingress waits for it again.
  push.kill('SIGKILL');
  await waitUntil(() => participant() === undefined, { timeoutMs: 40_000, intervalMs: 100, what: 'uid 4242 to leave' });
  await waitUntil(async () => (await state()).state === 'waiting', { timeoutMs: 10_000, intervalMs: 100, what: 'state waiting' });

  // It comes back under the same uid with the same key, now with a keyframe a minute (a camera's long GOP). The
  // source cannot be asked for a keyframe: its first GOP is held until its WHIP session is up (none of it is lost),
  // and viewers that join mid-GOP start at once from the channel's GOP cache, a second viewer at the same keyframe
  // as the first, and see the source's colour.
  const again = spawnChild(FFMPEG_BIN, obsLike(ingress.push.url, { keyframeEvery: 900 }), { stdio: ['ignore', 'ignore', 'pipe'] });
  let againErr = '';
  again.stderr!.on('data', (d: Buffer) => (againErr += d.toString()));
  const againExit = new Promise<number | null>((resolve) => again.once('exit', (code) => resolve(code)));
  t.after(() => again.kill('SIGKILL'));
  let lastState: IngressBody | undefined;
  await waitUntil(async () => ((lastState = await state()), participant()?.tracks.length === 2), {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: () => `uid 4242 back in the channel (ingress ${JSON.stringify(lastState)}; pusher: ${againErr})`,
  });
  const viewer = (uid: number) =>
    whepSubscribe({ endpoint: `${h.server.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=${uid}&publisher=4242`, token: rtcToken(cname, uid, 2), kinds: ['video'], videoCodecs: ['h264'] });
  const early = await viewer(9311);
  t.after(() => early.close());
  await early.waitFor(() => firstFramePackets(early.packets.video).length > 0 && early.counts.video > 60, 60_000, 'the first viewer: a keyframe and frames after it');
  const late = await viewer(9312);
  t.after(() => late.close());
  await late.waitFor(() => firstFramePackets(late.packets.video).length > 0, 20_000, 'the late viewer started from the cached GOP (the next keyframe is a minute away)');
  assert.equal(late.packets.video[0]!.header.timestamp, early.packets.video[0]!.header.timestamp, 'both start at the same keyframe');
  const frame = frameFile('h264', firstFramePackets(late.packets.video));
  assert.ok(frame.isKeyframe);
  const [vr, vg, vb] = await decodePixel(frame.data, frame.format);
  assert.ok(vb > 200 && vr < 60 && vg < 60, `the late viewer's first picture is blue, got ${[vr, vg, vb]}`);
  await Promise.all([early.close(), late.close()]);
  const del = await fetch(`${h.server.url}/v1/apps/${APP}/ingress/${ingress.ingressId}`, { method: 'DELETE', headers: { authorization: AUTH } });
  assert.equal(del.status, 204);
  await waitUntil(() => participant() === undefined, { timeoutMs: 20_000, intervalMs: 100, what: 'uid 4242 to leave after the delete' });
  assert.notEqual(await againExit, 0, 'the encoder sees its connection closed');
  const revoked = await runChild(FFMPEG_BIN, obsLike(ingress.push.url, { seconds: 2 }));
  assert.notEqual(revoked.code, 0, 'the deleted ingress key is refused');
});

test('RTMP encoders without a microphone or without a camera publish the kind they send: the FLV stream tells which; one deleted through another process ends within seconds', async (t) => {
  const database = await openTestDatabase('sqlite');
  t.after(() => database.close());
  const h = await startHarness({ env: { REELTIME_INGRESS_RTMP_PORT: '0' }, database });
  t.after(() => h.close());
  const ids = new Map<number, string>();
  const pushes = new Map<number, ChildProcess>();
  const channel = h.server.modules.find((m) => m.name === 'channel') as ChannelModule;
  const cname = 'ingest-rtmp-one-kind';
  const participant = (uid: number) => channel.snapshot(APP, cname).participants.find((p) => p.uid === uid);
  for (const [uid, kinds, codec] of [
    [4243, ['video'], 'video/h264'],
    [4244, ['audio'], 'audio/opus'],
  ] as const) {
    const created = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: String(uid), kind: 'rtmp' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ingress = created.body as unknown as IngressBody;
    ids.set(uid, ingress.ingressId);
    const push = spawnChild(FFMPEG_BIN, obsLike(ingress.push.url, { kinds }), { stdio: ['ignore', 'ignore', 'pipe'] });
    pushes.set(uid, push);
    let pushErr = '';
    push.stderr!.on('data', (d: Buffer) => (pushErr += d.toString()));
    t.after(() => push.kill('SIGKILL'));
    let state: IngressBody | undefined;
    const joined = await waitUntil(
      async () => {
        state = (await h.api('GET', `/v1/apps/${APP}/ingress/${ingress.ingressId}`)).body as unknown as IngressBody;
        return state.state === 'publishing' && participant(uid)?.tracks.length ? participant(uid) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: () => `uid ${uid} publishing ${kinds.join('')} (ingress ${JSON.stringify(state)}; pusher: ${pushErr})` },
    );
    assert.deepEqual(joined.tracks.map((tr) => tr.codec), [codec]);
  }
  // The camera-only one is watched: its picture decodes.
  const viewer = await whepSubscribe({
    endpoint: `${h.server.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=9321&publisher=4243`,
    token: rtcToken(cname, 9321, 2),
    kinds: ['video'],
    videoCodecs: ['h264'],
  });
  t.after(() => viewer.close());
  await viewer.waitFor(() => firstFramePackets(viewer.packets.video).length > 0, 30_000, 'a picture of the video-only encoder');
  const frame = frameFile('h264', firstFramePackets(viewer.packets.video));
  const [r, g, b] = await decodePixel(frame.data, frame.format);
  assert.ok(b > 200 && r < 60 && g < 60, `blue expected, got ${[r, g, b]}`);

  // Another process deletes the audio-only one (its row goes from the shared database): this process, which holds the
  // publish, ends it at its next look (every 2 s), and the encoder sees its connection closed.
  const exited = new Promise<void>((resolve) => pushes.get(4244)!.once('exit', () => resolve()));
  assert.equal(await new IngressStore(database.db).remove(APP, ids.get(4244)!), true);
  await waitUntil(() => participant(4244) === undefined, { timeoutMs: 20_000, intervalMs: 100, what: 'uid 4244 to leave after its ingress was deleted elsewhere' });
  await exited;
  assert.ok(participant(4243), 'the other publishes on');
});
