// Ingest benchmark (docs/ingest.md, "Benchmark"): for an RTMP push, an SRT push (H.264 passed through, AAC to
// Opus), an RTSP camera (H.264 passed through, G.711 to Opus) and an H.265 RTSP camera (video re-encoded to H.264),
// the CPU reeltime spends on one ingested stream
// (its process and its ingest ffmpeg) against the floor: ffmpeg alone doing the same remux (the ingest ffmpeg's own
// arguments, sending RTP to this process) from the same source at the same time. For RTMP and SRT also the delay a
// frame takes to reach a WHEP viewer of the channel, against the floor's RTP output (both decoded the same way and
// read by the frame number drawn into the picture): what reeltime adds to a plain remux. Prints figures and
// ratios; asserts nothing. Usage: npm run bench:ingest   (BENCH_SECONDS=10: the length of each measurement;
// BENCH_INGEST_MEDIA_PATH=whip: the ingests publish over WHIP, as into a channel on another node, instead of in-process)
import type { ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frameCodeFilters, whepSubscribe } from '../../src/channel/index.ts';
import { FIRST_PLAN, spawnIngestFfmpeg, type IngestInput, type MediaPlan } from '../../src/ingress/pipeline.ts';
import { FFMPEG_BIN } from '../../src/media/index.ts';
import { processInfo, spawnChild, treeCpuSeconds } from '../../src/process/index.ts';
import { APP, rtcToken } from '../../src/recorders/individual/testing/harness.ts';
import { isRtcp } from '../../src/rtp-payload/index.ts';
import { freePort, freeUdpPort, startServerProcess, TEST_CUSTOMER_AUTH, waitUntil } from '../../src/testing/index.ts';
import { startFrameTimes, type FrameTimes } from './frame-times.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_MS = 3000;
const [W, H, FPS] = [640, 360, 15];
const CAMERA = new URL('../../src/ingress/rtsp-camera.py', import.meta.url).pathname;
const FLOOR_PASSPHRASE = 'bench-floor-passphrase';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
const srtPort = await freeUdpPort();
const MEDIA_PATH = process.env.BENCH_INGEST_MEDIA_PATH === 'whip' ? 'whip' : 'auto';
const server = await startServerProcess({
  dataDir,
  env: { REELTIME_INGRESS_RTMP_PORT: String(await freePort()), REELTIME_INGRESS_SRT_PORTS: String(srtPort), REELTIME_INGRESS_MEDIA_PATH: MEDIA_PATH },
});
const children: ChildProcess[] = [];
const sockets: Socket[] = [];

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: TEST_CUSTOMER_AUTH, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json().catch(() => ({}))) as Record<string, unknown> };
}

/** Whether a UDP socket is bound to 127.0.0.1:`port` (an SRT listener up). */
const udpBound = (port: number) =>
  readFileSync('/proc/net/udp', 'utf8').includes(`0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`);

/** An encoder as OBS's settings make it, with the frame number drawn in, writing every output of a tee. */
function encoder(format: 'flv' | 'mpegts', outputs: readonly string[]): ChildProcess {
  const child = spawnChild(
    FFMPEG_BIN,
    [
      '-hide_banner', '-loglevel', 'error', '-nostdin',
      '-re', '-f', 'lavfi', '-i', `color=c=blue:s=${W}x${H}:r=${FPS}${frameCodeFilters({ width: W, height: H, frameCode: true })},format=yuv420p`,
      '-re', '-f', 'lavfi', '-i', 'sine=frequency=880:sample_rate=48000',
      '-map', '0:v', '-map', '1:a',
      '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-bf', '0', '-g', '30', '-b:v', '800k',
      '-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2',
      // FLV carries the codecs' headers once, at the start: the encoders must make them (a tee does not ask).
      ...(format === 'flv' ? ['-flags', '+global_header'] : []),
      '-f', 'tee', outputs.map((o) => `[f=${format}:onfail=ignore]${o}`).join('|'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  return child;
}

/** The floor: the ingest ffmpeg alone, its RTP to two sockets here (video into `frames`, when given). */
async function floor(input: IngestInput, frames?: FrameTimes, plan: MediaPlan = FIRST_PLAN): Promise<ChildProcess> {
  const [video, audio] = [createSocket('udp4'), createSocket('udp4')];
  sockets.push(video, audio);
  await Promise.all([video, audio].map((s) => new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()))));
  video.on('message', (m) => !isRtcp(m) && frames?.push(m));
  const child = spawnIngestFfmpeg(video.address().port, audio.address().port, input, plan);
  child.stdin?.on('error', () => undefined);
  children.push(child);
  return child;
}

interface Row {
  readonly kind: string;
  readonly reeltimeCores: number;
  readonly floorCores: number;
  readonly addedDelayMs?: { readonly median: number; readonly p95: number; readonly frames: number };
}

/** CPU (cores) of reeltime's process tree and of the floor's ffmpeg over the window, after a warm-up. */
async function measureCpu(floorPid: number): Promise<{ reeltime: number; floor: number }> {
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const [r0, f0, t0] = [treeCpuSeconds(server.pid), processInfo(floorPid)?.cpuSeconds ?? 0, performance.now()];
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const wall = (performance.now() - t0) / 1000;
  return { reeltime: (treeCpuSeconds(server.pid) - r0) / wall, floor: ((processInfo(floorPid)?.cpuSeconds ?? 0) - f0) / wall };
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;

/** Frames both paths decoded: how much later the WHEP viewer saw each than the floor did. */
function addedDelay(viewer: FrameTimes, floorFrames: FrameTimes): Row['addedDelayMs'] {
  const d: number[] = [];
  for (const [code, at] of viewer.seen) {
    const f = floorFrames.seen.get(code);
    if (f !== undefined) d.push(at - f);
  }
  return { median: quantile(d, 0.5), p95: quantile(d, 0.95), frames: d.length };
}

/** Runs one kind: creates its ingress, starts its source (and the floor from the same source), measures. */
async function runKind(kind: 'rtmp' | 'srt' | 'rtsp' | 'rtsp-h265', uid: number): Promise<Row> {
  const cname = `bench-${kind}`;
  const viewerFrames = startFrameTimes(W, H);
  const floorFrames = startFrameTimes(W, H);
  let floorChild: ChildProcess;
  let ingressId: string;
  let cameraSize: [number, number] | undefined;
  if (kind === 'rtsp' || kind === 'rtsp-h265') {
    const port = await freePort();
    const h265 = kind === 'rtsp-h265' ? ['--codec', 'h265'] : [];
    const camera = spawnChild('/usr/bin/python3', [CAMERA, String(port), '/cam', '0000ff', '440', ...h265], { stdio: ['pipe', 'pipe', 'ignore'] });
    children.push(camera);
    let out = '';
    camera.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitUntil(() => out.includes('listening'), { timeoutMs: 30_000, what: 'the camera' });
    const url = `rtsp://127.0.0.1:${port}/cam`;
    const created = await api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: String(uid), kind: 'rtsp', url });
    ingressId = created.body.ingressId as string;
    floorChild = await floor({ kind: 'rtsp', url, transport: 'tcp' }, undefined, h265.length ? { ...FIRST_PLAN, video: 'transcode' } : FIRST_PLAN);
    cameraSize = [320, 180];
  } else {
    const created = await api('POST', `/v1/apps/${APP}/ingress`, { cname, uid: String(uid), kind });
    if (created.status !== 201) throw new Error(`${kind} ingress: ${JSON.stringify(created.body)}`);
    ingressId = created.body.ingressId as string;
    const push = created.body.push as { url: string };
    if (kind === 'rtmp') {
      floorChild = await floor({ kind: 'flv' }, floorFrames);
      const source = encoder('flv', [push.url, 'pipe:1']);
      source.stdout!.pipe(floorChild.stdin!);
    } else {
      const floorPort = await freeUdpPort();
      floorChild = await floor({ kind: 'srt', host: '127.0.0.1', port: floorPort, passphrase: FLOOR_PASSPHRASE }, floorFrames);
      await waitUntil(() => udpBound(srtPort) && udpBound(floorPort), { timeoutMs: 30_000, intervalMs: 100, what: 'both SRT listeners' });
      encoder('mpegts', [push.url, `srt://127.0.0.1:${floorPort}?passphrase=${FLOOR_PASSPHRASE}&pbkeylen=16`]);
    }
  }
  let last: Record<string, unknown> = {};
  await waitUntil(async () => (last = (await api('GET', `/v1/apps/${APP}/ingress/${ingressId}`)).body).state === 'publishing', {
    timeoutMs: 60_000,
    intervalMs: 200,
    what: () => `${kind} publishing: ${JSON.stringify(last)}`,
  });
  const viewerUid = 90_000 + uid;
  const viewer = await whepSubscribe({
    endpoint: `${server.url}/rtc/v1/apps/${APP}/channels/${encodeURIComponent(cname)}/whep?uid=${viewerUid}&publisher=${uid}`,
    token: rtcToken(cname, viewerUid, 2),
    kinds: ['video'],
    keep: 0,
  });
  if (!cameraSize) viewer.onRtp((k, p) => k === 'video' && viewerFrames.push(p.serialize()));
  const cpu = await measureCpu(floorChild.pid!);
  await viewer.close();
  await api('DELETE', `/v1/apps/${APP}/ingress/${ingressId}`);
  viewerFrames.close();
  floorFrames.close();
  for (const c of children.splice(0)) c.kill('SIGKILL');
  return { kind, reeltimeCores: cpu.reeltime, floorCores: cpu.floor, ...(cameraSize ? {} : { addedDelayMs: addedDelay(viewerFrames, floorFrames) }) };
}

const rows: Row[] = [];
let idleCores = 0;
try {
  // What the server spends with no ingress at all (timers, the database), taken off each kind's figure.
  const i0 = [treeCpuSeconds(server.pid), performance.now()] as const;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  idleCores = (treeCpuSeconds(server.pid) - i0[0]) / ((performance.now() - i0[1]) / 1000);
  rows.push(await runKind('rtmp', 7001));
  rows.push(await runKind('srt', 7002));
  rows.push(await runKind('rtsp', 7003));
  rows.push(await runKind('rtsp-h265', 7004));
} finally {
  for (const c of children) c.kill('SIGKILL');
  for (const s of sockets) s.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}

console.log(
  `ingest, one stream each, ${SECONDS} s windows after ${WARMUP_MS / 1000} s. reeltime: its process tree (the ingest ffmpeg, ${MEDIA_PATH === 'whip' ? 'the WHIP publish into the channel' : 'the in-process publish into the channel'}, ` +
    `the SFU forwarding to one WHEP viewer) less its idle ${idleCores.toFixed(3)} cores; floor: the same ffmpeg alone`,
);
for (const r of rows) {
  const own = r.reeltimeCores - idleCores;
  const delay = r.addedDelayMs ? `; WHEP viewer later than the floor's RTP by median ${r.addedDelayMs.median.toFixed(0)} ms, p95 ${r.addedDelayMs.p95.toFixed(0)} ms (${r.addedDelayMs.frames} frames)` : '';
  console.log(`  ${r.kind.padEnd(9)} reeltime ${own.toFixed(3)} cores, floor ${r.floorCores.toFixed(3)} cores: ${(own / r.floorCores).toFixed(2)}× the floor${delay}`);
}
