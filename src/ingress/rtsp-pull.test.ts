// reeltime pulls a camera over RTSP (GStreamer's RTSP server on loopback, rtsp-camera.py: H.264 + G.711 A-law) and
// calls an SRT listener (ffmpeg, MPEG-TS), publishing each into its channel, where an individual recording takes
// it and Chromium plays it through the call page. Heavy (scripts/test-lanes.mjs).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ChannelModule } from '../channel/index.ts';
import { FFMPEG_BIN } from '../media/index.ts';
import { decodeMono, dominantFrequency, pixelAt } from '../media/capture/testing/media-checks.ts';
import { spawnChild } from '../process/index.ts';
import { APP, rtcToken, startHarness, storageConfig, type Harness } from '../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../recorders/individual/testing/media-checks.ts';
import { callPageTileCentre, callPageTilePlays, launchTestChromium } from '../testing/chromium.ts';
import { freePort, freeUdpPort, waitUntil } from '../testing/index.ts';
import { ingestCommandLinesHolding, obsLike } from './testing.ts';
import { callPageUrl } from '../testing/call-page.ts';

const CAMERA = join(import.meta.dirname, 'rtsp-camera.py');

interface IngressBody {
  ingressId: string;
  state: string;
  url?: string;
  transport?: string;
  error?: string;
  push?: unknown;
}

interface CameraOptions {
  readonly rgb?: string;
  readonly toneHz?: number;
  readonly credentials?: string;
  readonly codec?: 'h264' | 'h265' | 'vp8';
  /** Several slices per picture (x264's sliced threads), as some cameras send. */
  readonly sliced?: boolean;
  /** No audio track (a camera without a microphone). */
  readonly noAudio?: boolean;
}

/** Starts the stand-in camera on `port`; resolves once it listens. It ends with its stdin (this process). */
async function startCamera(t: TestContext, port: number, o: CameraOptions = {}): Promise<ChildProcess> {
  const args = [CAMERA, String(port), '/cam', o.rgb ?? '00ff00', String(o.toneHz ?? 550)];
  if (o.credentials) args.push('--credentials', o.credentials);
  if (o.codec) args.push('--codec', o.codec);
  if (o.sliced) args.push('--sliced');
  if (o.noAudio) args.push('--no-audio');
  const camera = spawnChild('/usr/bin/python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => camera.kill('SIGKILL'));
  let out = '';
  camera.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  camera.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitUntil(() => out.includes('listening'), { timeoutMs: 30_000, intervalMs: 50, what: () => `the camera to listen (${out})` });
  return camera;
}

const participantOf = (h: Harness, cname: string, uid: number) =>
  (h.server.modules.find((m) => m.name === 'channel') as ChannelModule).snapshot(APP, cname).participants.find((p) => p.uid === uid);

async function ingressState(h: Harness, id: string): Promise<IngressBody> {
  return (await h.api('GET', `/v1/apps/${APP}/ingress/${id}`)).body as unknown as IngressBody;
}

test('an RTSP camera (TCP, with a password) is pulled into the channel as the ingress uid and recorded with its colour and tone; it drops, comes back as the same uid, and the recording goes on after one discontinuity', async (t) => {
  const port = await freePort();
  const camera = { credentials: 'viewer:cam-secret-1' };
  let cameraProcess = await startCamera(t, port, camera);
  const logLines: string[] = [];
  const h = await startHarness({ recording: { individualSliceSeconds: 3 }, logLines });
  t.after(() => h.close());
  const cname = 'ingest-rtsp';
  const created = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: 6161, kind: 'rtsp', url: `rtsp://viewer:cam-secret-1@127.0.0.1:${port}/cam` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const ingress = created.body as unknown as IngressBody;
  // The camera's password is never answered; nothing to push to.
  assert.equal(ingress.url, `rtsp://viewer:***@127.0.0.1:${port}/cam`);
  assert.equal(ingress.push, undefined);
  assert.ok(!JSON.stringify((await h.api('GET', `/v1/apps/${APP}/ingress`)).body).includes('cam-secret-1'), 'the list hides the password too');

  let last: IngressBody | undefined;
  const joined = await waitUntil(
    async () => {
      last = await ingressState(h, ingress.ingressId);
      return participantOf(h, cname, 6161)?.tracks.length === 2 ? participantOf(h, cname, 6161) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: () => `uid 6161 publishing audio and video (ingress: ${JSON.stringify(last)})` },
  );
  // H.264 as the camera sent it; its G.711 transcoded to Opus.
  assert.deepEqual(joined.tracks.map((tr) => tr.codec).sort(), ['audio/opus', 'video/h264']);
  await waitUntil(async () => (await ingressState(h, ingress.ingressId)).state === 'publishing', { timeoutMs: 10_000, intervalMs: 100, what: 'state publishing' });

  const { resourceId, sid } = await h.startRecording(cname, '9303', {
    token: rtcToken(cname, 9303, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
  });
  const videoSlices = () => bucketKeys(h.bucketDir).filter((k) => k.includes('__uid_s_6161__uid_e_video_') && k.endsWith('.ts')).length;
  // The camera's password reached the ingest ffmpeg on its stdin: no local user reads it from a process list.
  assert.deepEqual(ingestCommandLinesHolding('cam-secret-1'), []);
  await waitUntil(() => videoSlices() >= 3, {
    timeoutMs: 90_000,
    intervalMs: 250,
    // Session 25 (a loaded slow machine): none in 90 s; say what there was.
    what: () => `3 video slices of the camera (bucket: ${bucketKeys(h.bucketDir).filter((k) => k.includes('6161')).join(' ')}; participant ${JSON.stringify(participantOf(h, cname, 6161))})`,
  });

  // The camera goes away: the participant leaves and the ingress waits; back on the same address, it is pulled again.
  cameraProcess.kill('SIGKILL');
  await waitUntil(() => participantOf(h, cname, 6161) === undefined, { timeoutMs: 40_000, intervalMs: 100, what: 'uid 6161 to leave' });
  await waitUntil(async () => (await ingressState(h, ingress.ingressId)).state !== 'publishing', { timeoutMs: 10_000, intervalMs: 100, what: 'state not publishing' });
  cameraProcess = await startCamera(t, port, camera);
  await waitUntil(() => participantOf(h, cname, 6161)?.tracks.length === 2, { timeoutMs: 60_000, intervalMs: 100, what: 'uid 6161 back' });
  const atReturn = videoSlices();
  await waitUntil(() => videoSlices() >= atReturn + 2, { timeoutMs: 60_000, intervalMs: 250, what: 'video slices after the camera came back' });

  const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9303', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const keys = bucketKeys(h.bucketDir);
  const playlist = keys.find((k) => k.endsWith('__uid_s_6161__uid_e_video.m3u8'));
  assert.ok(playlist, `the camera's video playlist in ${keys.join(', ')}`);
  const text = readFileSync(join(h.bucketDir, playlist), 'utf8');
  assert.equal((text.match(/#EXT-X-DISCONTINUITY\b/g) ?? []).length, 1, `one discontinuity where the camera came back:\n${text}`);
  const mp4 = keys.find((k) => k.endsWith('.mp4'));
  assert.ok(mp4, `an MP4 in the bucket: ${keys.join(', ')}`);
  const file = join(h.bucketDir, mp4);
  const [r, g, b] = await pixelAt(file, 160, 90);
  assert.ok(g > 100 && r < 60 && b < 60, `green expected, got ${[r, g, b]}`);
  const hz = dominantFrequency(await decodeMono(file));
  assert.ok(Math.abs(hz - 550) <= 5, `550 Hz expected, got ${hz}`);
  assert.ok(logLines.some((l) => l.includes('ingress: publishing')), 'the server logs at info');
  assert.ok(!logLines.some((l) => l.includes('cam-secret-1')), 'the password is in no log line');

  // Deleted: the pull ends and the participant leaves.
  assert.equal((await h.api('DELETE', `/v1/apps/${APP}/ingress/${ingress.ingressId}`)).status, 204);
  await waitUntil(() => participantOf(h, cname, 6161) === undefined, { timeoutMs: 20_000, intervalMs: 100, what: 'uid 6161 to leave after the delete' });
});

test('an RTSP camera over UDP (each picture in several slices), one without audio, an H.265 one (re-encoded) and an SRT listener that reeltime calls (caller mode, with its passphrase), each join as their uid and play in Chromium', async (t) => {
  const logLines: string[] = [];
  const h = await startHarness({ logLines });
  t.after(() => h.close());
  const cname = 'ingest-pull';

  const rtspPort = await freePort();
  await startCamera(t, rtspPort, { rgb: 'ff0000', toneHz: 440, sliced: true });
  const rtsp = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '6162', kind: 'rtsp', url: `rtsp://127.0.0.1:${rtspPort}/cam`, transport: 'udp' });
  assert.equal(rtsp.status, 201, JSON.stringify(rtsp.body));
  assert.equal((rtsp.body as unknown as IngressBody).transport, 'udp');
  const muteCameraPort = await freePort();
  await startCamera(t, muteCameraPort, { rgb: '0000ff', noAudio: true });
  const mute = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '6164', kind: 'rtsp', url: `rtsp://127.0.0.1:${muteCameraPort}/cam` });
  assert.equal(mute.status, 201, JSON.stringify(mute.body));
  const hevcCameraPort = await freePort();
  await startCamera(t, hevcCameraPort, { rgb: 'ffff00', codec: 'h265' });
  const hevc = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '6165', kind: 'rtsp', url: `rtsp://127.0.0.1:${hevcCameraPort}/cam` });
  assert.equal(hevc.status, 201, JSON.stringify(hevc.body));

  // An encoder in SRT listener mode, as OBS or a hardware encoder set to "listener" runs.
  const srtPort = await freeUdpPort();
  const passphrase = 'srt-caller-passphrase-1';
  const encoder = spawnChild(FFMPEG_BIN, obsLike(`srt://127.0.0.1:${srtPort}?mode=listener&passphrase=${passphrase}&pbkeylen=16`, { color: 'green', toneHz: 550, format: 'mpegts' }), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => encoder.kill('SIGKILL'));
  const srt = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: '6163', kind: 'srt', url: `srt://127.0.0.1:${srtPort}?passphrase=${passphrase}` });
  assert.equal(srt.status, 201, JSON.stringify(srt.body));
  const srtBody = srt.body as unknown as IngressBody;
  assert.equal(srtBody.url, `srt://127.0.0.1:${srtPort}?passphrase=***`);
  assert.equal(srtBody.push, undefined, 'no listener of reeltime to push to');

  for (const uid of [6162, 6163, 6165]) {
    const joined = await waitUntil(() => (participantOf(h, cname, uid)?.tracks.length === 2 ? participantOf(h, cname, uid) : undefined), {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: `uid ${uid} publishing audio and video`,
    });
    assert.deepEqual(joined.tracks.map((tr) => tr.codec).sort(), ['audio/opus', 'video/h264']);
  }
  // The camera without audio publishes its video alone.
  const muteJoined = await waitUntil(() => (participantOf(h, cname, 6164)?.tracks.length ? participantOf(h, cname, 6164) : undefined), {
    timeoutMs: 60_000,
    intervalMs: 100,
    what: 'uid 6164 publishing video',
  });
  assert.deepEqual(muteJoined.tracks.map((tr) => tr.codec), ['video/h264']);
  // The admission weighs a re-encode: the H.265 camera holds ingress.transcodeCost units, a copied source ingress.cost.
  const units = (uid: string) =>
    logLines
      .flatMap((l): { msg?: string; uid?: string; units?: number }[] => {
        try {
          return [JSON.parse(l)];
        } catch {
          return [];
        }
      })
      .find((l) => l.msg === 'ingress: publishing' && String(l.uid) === uid)?.units;
  // (The participant shows in the channel just before its publish is admitted and logged.)
  const held = await waitUntil(() => {
    const all = ['6165', '6162', '6164', '6163'].map(units);
    return all.every((u) => u !== undefined) && all;
  }, { timeoutMs: 10_000, intervalMs: 100, what: 'each source admitted with its units' });
  assert.deepEqual(held, [15, 3, 3, 3]);
  // The SRT caller's passphrase reached its ingest ffmpeg on stdin, not in a process list.
  assert.deepEqual(ingestCommandLinesHolding(passphrase), []);

  // Watched in Chromium through the call page (WHEP): the cameras' red and blue and the SRT encoder's green, decoded.
  const browser = await launchTestChromium();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(callPageUrl(h.server.url, cname, 6169));
  for (const [uid, colour] of [
    [6162, [255, 0, 0]],
    [6163, [0, 128, 0]],
    [6164, [0, 0, 255]],
    [6165, [255, 255, 0]],
  ] as const) {
    try {
      await page.waitForFunction(callPageTilePlays, uid, { timeout: 60_000 });
    } catch (e) {
      const tile = await page.evaluate((u) => {
        const v = document.querySelector(`#remote-${u} video`) as HTMLVideoElement | null;
        return v ? { width: v.videoWidth, frames: v.getVideoPlaybackQuality().totalVideoFrames, readyState: v.readyState } : 'no tile';
      }, uid);
      // Seen once in a whole-suite run (session 20): the H.265 camera's uid had joined, then was gone. Its ingress says why.
      const ingresses = await h.api('GET', `/v1/apps/${APP}/ingress`);
      throw new Error(
        `uid ${uid} does not play in Chromium: ${JSON.stringify(tile)}; participant ${JSON.stringify(participantOf(h, cname, uid))}; ingresses ${JSON.stringify(ingresses.body).slice(0, 3000)} (${(e as Error).message})`,
      );
    }
    const pixel = await page.evaluate(callPageTileCentre, uid);
    assert.ok(
      pixel.every((v, i) => Math.abs(v - colour[i]!) < 50),
      `uid ${uid}: ${JSON.stringify(pixel)} in Chromium, ${JSON.stringify(colour)} sent`,
    );
  }
});


test('sources that cannot be published end in a clear state and reason, without a hang: a VP8 camera, a wrong password, a server that never answers', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const cname = 'ingest-bad';
  const vp8Port = await freePort();
  await startCamera(t, vp8Port, { codec: 'vp8', credentials: 'viewer:right-password' });
  // A TCP server that takes the connection and never says a word.
  const held: Socket[] = [];
  const silent = createServer((sock) => void held.push(sock));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const sock of held) sock.destroy();
    silent.close();
  });
  const sources = {
    vp8: { uid: '6171', url: `rtsp://viewer:right-password@127.0.0.1:${vp8Port}/cam` },
    password: { uid: '6172', url: `rtsp://viewer:wrong-password@127.0.0.1:${vp8Port}/cam` },
    silent: { uid: '6173', url: `rtsp://127.0.0.1:${(silent.address() as { port: number }).port}/cam` },
  };
  const ids: Record<string, string> = {};
  for (const [name, s] of Object.entries(sources)) {
    const r = await h.api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: s.uid, kind: 'rtsp', url: s.url });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids[name] = (r.body as unknown as IngressBody).ingressId;
  }
  const failed = async (name: string) =>
    waitUntil(
      async () => {
        const i = await ingressState(h, ids[name]!);
        return i.state === 'failed' ? i : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: `${name}: state failed` },
    );
  assert.match((await failed('vp8')).error ?? '', /^video: the source sends vp8, not H\.264/);
  const password = await failed('password');
  assert.match(password.error ?? '', /401/, 'the camera refused the credentials');
  assert.ok(!(password.error ?? '').includes('wrong-password'), password.error);
  // ffmpeg's 10 s socket timeout, within the publish's 20 s start timeout.
  assert.ok((await failed('silent')).error, 'a reason for the silent server');
  for (const s of Object.values(sources)) assert.equal(participantOf(h, cname, Number(s.uid)), undefined);
});
