// ffmpeg pushes SRT (caller, MPEG-TS with x264 + AAC, the ingress passphrase) to the ingress's listener; the ingress
// publishes it into the channel, where an individual recording takes it. Heavy (scripts/test-lanes.mjs).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChannelModule } from '../channel/index.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { decodeMono, dominantFrequency, pixelAt } from '../media/capture/testing/media-checks.ts';
import { runChild, spawnChild } from '../process/index.ts';
import { APP, rtcToken, startHarness, storageConfig } from '../recorders/individual/testing/harness.ts';
import { bucketKeys, slicesWritten } from '../recorders/individual/testing/media-checks.ts';
import { freeUdpPort, waitUntil } from '../testing/index.ts';
import { ingestCommandLinesHolding, joinedHow, obsLike } from './testing.ts';

/** The source an SRT encoder sends: green and 550 Hz, in MPEG-TS. */
const srtPush = (url: string, seconds?: number) => obsLike(url, { seconds, color: 'green', toneHz: 550, format: 'mpegts' });

interface IngressBody {
  ingressId: string;
  state: string;
  port?: number;
  push: { server: string; streamKey: string; url: string };
}

test('an SRT push with the passphrase joins the channel as the ingress uid; a wrong one is refused; a recording has its colour and tone', async (t) => {
  const port = await freeUdpPort();
  // Over WHIP (ingress.mediaPath whip), the path a channel on another node takes: the RTMP test publishes in-process.
  const logLines: string[] = [];
  const h = await startHarness({ env: { REELTIME_INGRESS_SRT_PORTS: String(port), REELTIME_INGRESS_MEDIA_PATH: 'whip' }, recording: { individualSliceSeconds: 3 }, logLines });
  t.after(() => h.close());
  const channel = h.server.modules.find((m) => m.name === 'channel') as ChannelModule;
  const cname = 'ingest-srt';
  const created = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '5151', kind: 'srt' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const ingress = created.body as unknown as IngressBody;
  assert.equal(ingress.push.server, `srt://127.0.0.1:${port}`);
  assert.ok(ingress.push.streamKey.length >= 10 && ingress.push.streamKey.length <= 79);
  // The only port of the range is taken: another SRT ingress is refused with the reason.
  const full = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '5152', kind: 'srt' });
  assert.equal(full.status, 503, JSON.stringify(full.body));
  const participant = () => channel.snapshot(APP, cname).participants.find((p) => p.uid === 5151);
  const state = async () => ((await h.api('GET', `/v1/apps/${APP}/ingress/${ingress.ingressId}`)).body as unknown as IngressBody).state;

  // The listener is up within a reconcile; a caller with a wrong passphrase is refused in the SRT handshake.
  await waitUntil(async () => (await runChild(FFMPEG_BIN, srtPush(`${ingress.push.server}?passphrase=not-the-passphrase&pbkeylen=16`, 1))).code !== 0, {
    timeoutMs: 10_000,
    what: 'a refused caller',
  });
  assert.equal(participant(), undefined);

  const push = spawnChild(FFMPEG_BIN, srtPush(ingress.push.url), { stdio: ['ignore', 'ignore', 'pipe'] });
  let pushErr = '';
  push.stderr!.on('data', (d: Buffer) => (pushErr += d.toString()));
  t.after(() => push.kill('SIGKILL'));
  const joined = await waitUntil(() => (participant()?.tracks.length === 2 ? participant() : undefined), {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: () => `uid 5151 publishing audio and video (${JSON.stringify(channel.snapshot(APP, cname))}; pusher: ${pushErr})`,
  });
  assert.deepEqual(joined.tracks.map((tr) => tr.codec).sort(), ['audio/opus', 'video/h264']);
  assert.equal(joinedHow(logLines, 5151), 'whip');
  await waitUntil(async () => (await state()) === 'publishing', { timeoutMs: 10_000, intervalMs: 100, what: 'state publishing' });
  // The passphrase reached the ingest ffmpeg on its stdin: no local user reads it from a process list.
  assert.deepEqual(ingestCommandLinesHolding(ingress.push.streamKey), []);

  const { resourceId, sid } = await h.startRecording(cname, '9302', {
    token: rtcToken(cname, 9302, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['mp4'] },
  });
  await waitUntil(() => slicesWritten(join(h.server.dataDir, 'recorder', 'individual', sid), 1000).length >= 6, {
    timeoutMs: 90_000,
    intervalMs: 250,
    what: 'local slices of the ingress',
  });
  const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9302', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const mp4 = bucketKeys(h.bucketDir).find((k) => k.endsWith('.mp4'));
  assert.ok(mp4, `an MP4 in the bucket: ${bucketKeys(h.bucketDir).join(', ')}`);
  const file = join(h.bucketDir, mp4);
  const [r, g, b] = await pixelAt(file, 320, 180);
  assert.ok(g > 100 && r < 60 && b < 60, `green expected, got ${[r, g, b]}`);
  const hz = dominantFrequency(await decodeMono(file));
  assert.ok(Math.abs(hz - 550) <= 5, `550 Hz expected, got ${hz}`);

  // The caller leaves: the participant leaves; the listener is back for the next caller, which rejoins.
  push.kill('SIGKILL');
  await waitUntil(() => participant() === undefined, { timeoutMs: 40_000, intervalMs: 100, what: 'uid 5151 to leave' });
  // An encoder that finds no listener yet (the last one still ending on a busy machine) gives up at once; it is
  // started again, as OBS reconnects.
  const caller = () => spawnChild(FFMPEG_BIN, srtPush(ingress.push.url), { stdio: ['ignore', 'ignore', 'ignore'] });
  let again = caller();
  let callers = 1;
  t.after(() => again.kill('SIGKILL'));
  await waitUntil(
    () => {
      if (again.exitCode !== null || again.signalCode !== null) {
        again = caller();
        callers++;
      }
      return participant()?.tracks.length === 2;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: () => `uid 5151 back (${callers} callers started)` },
  );
});
