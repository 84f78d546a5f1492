// reeltime pulls a stream from another WebRTC server over WHEP (here a second reeltime node's channel, with the
// bearer token that node wants) and publishes it packet for packet into its own channel, where an individual
// recording takes it. Heavy (scripts/test-lanes.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { startRtpPublisher, type ChannelModule } from '../channel/index.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { spawnChild } from '../process/index.ts';
import { decodeMono, dominantFrequency, pixelAt } from '../media/capture/testing/media-checks.ts';
import { APP, rtcToken, startHarness, storageConfig, type Harness } from '../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../recorders/individual/testing/media-checks.ts';
import { waitUntil } from '../testing/index.ts';

interface IngressBody {
  ingressId: string;
  state: string;
  url?: string;
  error?: string;
}

const participantOf = (h: Harness, cname: string, uid: number) =>
  (h.server.modules.find((m) => m.name === 'channel') as ChannelModule).snapshot(APP, cname).participants.find((p) => p.uid === uid);

const ingressState = async (h: Harness, id: string) => (await h.api('GET', `/v1/apps/${APP}/ingress/${id}`)).body as unknown as IngressBody;

test('a WHEP source (another reeltime node\'s channel, with its token) is pulled into the channel as the ingress uid and recorded with its colour and tone; its publisher leaves and comes back, and so does the uid', async (t) => {
  const origin = await startHarness();
  t.after(() => origin.close());
  const logLines: string[] = [];
  const h = await startHarness({ recording: { individualSliceSeconds: 3 }, logLines });
  t.after(() => h.close());

  let source = await origin.publish({ cname: 'origin', uid: 501, color: 'red', toneHz: 440 });
  const token = rtcToken('origin', 6171, 2);
  const url = `${origin.server.url}/rtc/v1/apps/${APP}/channels/origin/whep?uid=6171&publisher=501`;
  const created = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname: 'relayed', uid: 6172, kind: 'whep', url, token });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const ingress = created.body as unknown as IngressBody;
  assert.equal(ingress.url, url);

  let last: IngressBody | undefined;
  const joined = await waitUntil(
    async () => {
      last = await ingressState(h, ingress.ingressId);
      return participantOf(h, 'relayed', 6172)?.tracks.length === 2 ? participantOf(h, 'relayed', 6172) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: () => `uid 6172 publishing audio and video (ingress: ${JSON.stringify(last)})` },
  );
  // The codecs the source sent, not transcoded.
  assert.deepEqual(joined.tracks.map((tr) => tr.codec).sort(), ['audio/opus', 'video/vp8']);
  await waitUntil(async () => (await ingressState(h, ingress.ingressId)).state === 'publishing', { timeoutMs: 10_000, intervalMs: 100, what: 'state publishing' });

  const { resourceId, sid } = await h.startRecording('relayed', '9304', {
    token: rtcToken('relayed', 9304, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  // VP8 as the source sent it: WebM slices.
  const slices = (kind: 'audio' | 'video') => bucketKeys(h.bucketDir).filter((k) => k.includes(`__uid_s_6172__uid_e_${kind}_`));
  const videoSlices = () => slices('video').length;
  await waitUntil(() => videoSlices() >= 2, { timeoutMs: 90_000, intervalMs: 250, what: 'video slices of the relayed stream' });

  // The source's publisher leaves: its node ends the WHEP session (and says so), the relayed uid leaves at once;
  // back, it is pulled again under the same uid.
  await source.stop();
  await waitUntil(() => participantOf(h, 'relayed', 6172) === undefined, { timeoutMs: 20_000, intervalMs: 100, what: 'uid 6172 to leave' });
  // Tried again meanwhile: `failed` with the source's reason (its publisher is not there) until it is back.
  await waitUntil(async () => (await ingressState(h, ingress.ingressId)).state !== 'publishing', { timeoutMs: 10_000, intervalMs: 100, what: 'state not publishing' });
  source = await origin.publish({ cname: 'origin', uid: 501, color: 'red', toneHz: 440 });
  await waitUntil(() => participantOf(h, 'relayed', 6172)?.tracks.length === 2, { timeoutMs: 60_000, intervalMs: 100, what: 'uid 6172 back' });
  const atReturn = videoSlices();
  await waitUntil(() => videoSlices() >= atReturn + 2, { timeoutMs: 60_000, intervalMs: 250, what: 'video slices after the source came back' });

  const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname: 'relayed', uid: '9304', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  // What came after the return: the source's red and its 440 Hz.
  const [r, g, b] = await pixelAt(join(h.bucketDir, slices('video').at(-2)!), 160, 90);
  assert.ok(r > 150 && g < 80 && b < 80, `red expected, got ${[r, g, b]}`);
  const hz = dominantFrequency(await decodeMono(join(h.bucketDir, slices('audio').at(-2)!)));
  assert.ok(Math.abs(hz - 440) < 15, `440 Hz expected, got ${hz}`);
  assert.ok(!logLines.some((l) => l.includes(token)), 'the source token is in no log line');
  assert.ok(!JSON.stringify((await h.api('GET', `/v1/apps/${APP}/ingress`)).body).includes(token), 'nor in any answer');

  assert.equal((await h.api('DELETE', `/v1/apps/${APP}/ingress/${ingress.ingressId}`)).status, 204);
  await waitUntil(() => participantOf(h, 'relayed', 6172) === undefined, { timeoutMs: 20_000, intervalMs: 100, what: 'uid 6172 to leave after the delete' });
});

test('a WHEP source that refuses the token, or that is not there, leaves the ingress failed with the reason and nothing in the channel', async (t) => {
  const origin = await startHarness();
  t.after(() => origin.close());
  const h = await startHarness();
  t.after(() => h.close());
  await origin.publish({ cname: 'origin', uid: 502, color: 'blue', toneHz: 330 });
  const url = `${origin.server.url}/rtc/v1/apps/${APP}/channels/origin/whep?uid=6173&publisher=502`;
  const refused = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname: 'relayed', uid: 6174, kind: 'whep', url, token: 'not-a-token' });
  assert.equal(refused.status, 201, JSON.stringify(refused.body));
  const absent = await h.api('POST', `/v1/apps/${APP}/ingress`, {
    cname: 'relayed',
    uid: 6175,
    kind: 'whep',
    url: `${origin.server.url}/rtc/v1/apps/${APP}/channels/origin/whep?uid=6176&publisher=999`,
    token: rtcToken('origin', 6176, 2),
  });
  for (const [body, reason] of [
    [refused.body, /HTTP 401/],
    [absent.body, /publisher_not_found/],
  ] as const) {
    const id = (body as unknown as IngressBody).ingressId;
    let state: IngressBody | undefined;
    await waitUntil(async () => (state = await ingressState(h, id)).state === 'failed', { timeoutMs: 30_000, intervalMs: 100, what: () => `state failed (${JSON.stringify(state)})` });
    assert.match(state!.error ?? '', reason);
  }
  const snapshot = (h.server.modules.find((m) => m.name === 'channel') as ChannelModule).snapshot(APP, 'relayed');
  assert.deepEqual(snapshot.participants, []);
});

test('admission: a process with room for one ingress publishes one; the next waits failed with the reason and publishes once the first is deleted', async (t) => {
  const origin = await startHarness();
  t.after(() => origin.close());
  const h = await startHarness({ env: { REELTIME_INGRESS_CAPACITY: '3', REELTIME_INGRESS_COST: '3', REELTIME_INGRESS_CPU_THRESHOLD_PERCENT: '100' } });
  t.after(() => h.close());
  await origin.publish({ cname: 'origin', uid: 503, color: 'green', toneHz: 550 });
  const create = async (uid: number) => {
    const url = `${origin.server.url}/rtc/v1/apps/${APP}/channels/origin/whep?uid=${uid + 100}&publisher=503`;
    const r = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname: 'room', uid, kind: 'whep', url, token: rtcToken('origin', uid + 100, 2) });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return (r.body as unknown as IngressBody).ingressId;
  };
  const first = await create(6177);
  await waitUntil(() => participantOf(h, 'room', 6177)?.tracks.length === 2, { timeoutMs: 60_000, intervalMs: 100, what: 'the first ingress publishing' });
  const second = await create(6178);
  let state: IngressBody | undefined;
  await waitUntil(async () => (state = await ingressState(h, second)).state === 'failed', { timeoutMs: 60_000, intervalMs: 200, what: () => `the second failed (${JSON.stringify(state)})` });
  assert.match(state!.error ?? '', /^this process has no room for another ingress/);
  // Its participant, which joined before its media was refused, has left (on a loaded machine it was still listed
  // when `failed` was read: session 16's note).
  await waitUntil(() => participantOf(h, 'room', 6178) === undefined, { timeoutMs: 10_000, intervalMs: 100, what: 'the refused ingress to leave the channel' });
  assert.equal((await h.api('DELETE', `/v1/apps/${APP}/ingress/${first}`)).status, 204);
  // Tried again once its claim would have run out (15 s).
  await waitUntil(async () => {
    state = await ingressState(h, second);
    return participantOf(h, 'room', 6178)?.tracks.length === 2;
  }, {
    timeoutMs: 60_000,
    intervalMs: 200,
    // Session 25 (a slow loaded machine): timed out once; say what there was.
    what: () => `the second ingress publishing both kinds (participant ${JSON.stringify(participantOf(h, 'room', 6178))}, ingress ${JSON.stringify(state)})`,
  });
});

test('a WHEP source that sends video only (a camera without a microphone) is published with its video alone', async (t) => {
  const origin = await startHarness();
  t.after(() => origin.close());
  const h = await startHarness();
  t.after(() => h.close());
  // The origin's publisher: an encoder's VP8 alone, into the origin channel over WHIP.
  const camera = await startRtpPublisher({
    endpoint: `${origin.server.url}/rtc/v1/apps/${APP}/channels/origin/whip?uid=505`,
    token: rtcToken('origin', 505),
    video: 'vp8',
    kinds: ['video'],
    startTimeoutMs: 30_000,
    spawn: (videoPort) =>
      spawnChild(FFMPEG_BIN, [
        '-hide_banner', '-loglevel', 'error', '-nostdin', '-re', '-f', 'lavfi', '-i', 'color=c=blue:s=320x180:r=15',
        '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-g', '15', '-b:v', '300k', '-payload_type', '96',
        '-f', 'rtp', `rtp://127.0.0.1:${videoPort}?rtcpport=${videoPort}&pkt_size=1200`,
      ]),
  });
  t.after(() => camera.stop());
  const url = `${origin.server.url}/rtc/v1/apps/${APP}/channels/origin/whep?uid=6181&publisher=505`;
  const created = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname: 'relayed-mute', uid: 6182, kind: 'whep', url, token: rtcToken('origin', 6181, 2) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = (created.body as unknown as IngressBody).ingressId;
  let last: IngressBody | undefined;
  const joined = await waitUntil(
    async () => {
      last = await ingressState(h, id);
      return last.state === 'publishing' && participantOf(h, 'relayed-mute', 6182)?.tracks.length ? participantOf(h, 'relayed-mute', 6182) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: () => `uid 6182 publishing its video (ingress: ${JSON.stringify(last)})` },
  );
  assert.deepEqual(joined.tracks.map((tr) => tr.codec), ['video/vp8']);
});
