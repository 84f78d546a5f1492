/**
 * Web session benchmark through the HTTP API with the real web recorder (default 15 s slices), against a baseline
 * in the same run (one ffmpeg encoding a synthetic 1280×720@15 picture and tone with the same settings):
 *
 * 1. One 1280×720@15 session of an animated page with a tone, pushing to a loopback RTMP receiver (not counted):
 *    CPU in cores of the whole pipeline (Chromium's processes, Xvfb, PulseAudio, the encoder, the pusher) over
 *    BENCH_SECONDS (60) after a 4 s warm-up, from /proc (utime + stime of every process under this one); this
 *    process (API, recorder, relay, uploads, the bench itself) is printed apart. Also start → `start` answered,
 *    → first slice in the bucket, and a synchronous stop.
 * 2. Capacity: 2, 3, … sessions at once (no push) for BENCH_CAPACITY_SECONDS (45) each, until one does not hold
 *    real time: a session holds it when, over its slices after the first, its media reaches the bucket no later
 *    and later (each slice within 5 s of the end of its media, the lag growing by ≤ 3 s from first to last), ≤ 5 %
 *    of frame intervals are late (x11grab stamps by the wall clock and catches up in bursts when starved, so a
 *    frame count alone stays full), and the frames and AAC frames cover ≥ 95 % / 98 % of their streams' spans.
 *
 *   npm run bench:web-session     (BENCH_SECONDS=60, BENCH_CAPACITY_SECONDS=45, BENCH_MAX_SESSIONS=4)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPageServer } from '../src/media/capture/testing/page-server.ts';
import { freePort, rtmpReceiver } from '../src/media/capture/testing/rtmp-receiver.ts';
import { FFPROBE_BIN, parsePlaylist } from '../src/media/index.ts';
import { runChild } from '../src/process/index.ts';
import { startHarness, storageConfig, type Harness } from '../src/recorders/individual/testing/harness.ts';
import { bucketKeys, sleep } from '../src/recorders/individual/testing/media-checks.ts';
import { webClient, webService } from '../src/recorders/web/testing/web-client.ts';
import { baselineCores, loadAverage, measureCores } from './web-cpu.ts';
import { waitUntil } from '../src/testing/wait.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CAPACITY_SECONDS = Number(process.env.BENCH_CAPACITY_SECONDS ?? 45);
const MAX_SESSIONS = Number(process.env.BENCH_MAX_SESSIONS ?? 4);
const WIDTH = 1280;
const HEIGHT = 720;
const FPS = 15;
const KBPS = 2000;
const WARMUP_MS = 4000;

interface Session {
  readonly cname: string;
  readonly resourceId: string;
  readonly sid: string;
}

interface RealTime {
  readonly mediaSec: number;
  readonly videoRatio: number;
  readonly audioRatio: number;
  /** Share of frame intervals longer than 1.5 frame periods (a grabber that fell behind catches up in bursts). */
  readonly lateFrames: number;
  /** Per slice after the first: when it was in the bucket minus the UTC end of its media (s). */
  readonly lagsSec: readonly number[];
}

/** Per stream: packets and the media time they span (first pts to the last packet's end). */
async function streamSpans(file: string): Promise<Map<string, { packets: number; first: number; end: number; pts: number[] }>> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'packet=codec_type,pts_time,duration_time', '-of', 'csv=p=0', file]);
  const out = new Map<string, { packets: number; first: number; end: number; pts: number[] }>();
  for (const line of r.stdout.toString().split('\n')) {
    const [type, pts, dur] = line.trim().split(',');
    const t = Number(pts);
    if (!type || !Number.isFinite(t)) continue;
    const s = out.get(type) ?? { packets: 0, first: t, end: t, pts: [] };
    s.packets += 1;
    s.pts.push(t);
    s.first = Math.min(s.first, t);
    s.end = Math.max(s.end, t + (Number(dur) || 0));
    out.set(type, s);
  }
  return out;
}

/**
 * Frames and AAC frames in a stopped session's slices against what the time each stream spans needs (a stream's
 * own span, so the sound card starting a moment after the picture is not counted as a loss). The first slice is
 * left out: the sound card's first seconds have gaps of their own (≈ 0.5 s in the first 3 s, seen at any load),
 * which say nothing about keeping up.
 */
async function realTime(h: Harness, s: Session, arrivals: ReadonlyMap<string, number>): Promise<RealTime> {
  const dir = join(h.bucketDir, 'rec/ind');
  const pl = parsePlaylist(readFileSync(join(dir, `${s.sid}_${s.cname}.m3u8`), 'utf8'), 'video');
  let mediaSec = 0;
  const got = { video: 0, audio: 0 };
  const need = { video: 0, audio: 0 };
  let intervals = 0;
  let late = 0;
  const lagsSec: number[] = [];
  for (const e of pl.entries.slice(1)) {
    const spans = await streamSpans(join(dir, e.uri));
    mediaSec += e.durationSec;
    const arrived = arrivals.get(e.uri);
    if (arrived !== undefined) lagsSec.push((arrived - (e.startMs + e.durationSec * 1000)) / 1000);
    const pts = [...(spans.get('video')?.pts ?? [])].sort((a, b) => a - b);
    for (let i = 1; i < pts.length; i++) {
      intervals += 1;
      if (pts[i]! - pts[i - 1]! > 1.5 / FPS) late += 1;
    }
    for (const [type, rate] of [['video', FPS], ['audio', 48_000 / 1024]] as const) {
      const sp = spans.get(type);
      if (!sp) continue;
      got[type] += sp.packets;
      need[type] += (sp.end - sp.first) * rate;
    }
  }
  return { mediaSec, videoRatio: got.video / need.video, audioRatio: got.audio / need.audio, lateFrames: late / intervals, lagsSec };
}

/** Lag growth from the first to the last slice measured (s): a pipeline that keeps up holds it near 0. */
const lagGrowth = (r: RealTime) => (r.lagsSec.length < 2 ? 0 : r.lagsSec.at(-1)! - r.lagsSec[0]!);
const holds = (r: RealTime) =>
  r.videoRatio >= 0.95 && r.audioRatio >= 0.98 && r.lateFrames <= 0.05 && lagGrowth(r) <= 3 && Math.max(0, ...r.lagsSec) <= 5;
const fmt = (r: RealTime) =>
  `${r.mediaSec.toFixed(1)} s of media after the first slice, ${(r.videoRatio * 100).toFixed(1)} % of frames ` +
  `(${(r.lateFrames * 100).toFixed(1)} % late), ${(r.audioRatio * 100).toFixed(1)} % of audio frames; ` +
  `slice in the bucket ${r.lagsSec.map((l) => l.toFixed(1)).join(', ')} s after its media ended`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-web-session-'));
  const pages = await startPageServer({ busy: { colour: '#123', toneHz: 440, animation: true } });
  const rtmpPort = await freePort();
  const receiver = rtmpReceiver(rtmpPort, join(dir, 'received.ts'));
  const h = await startHarness();
  const web = webClient(h.api);
  const service = (push: boolean) => ({
    extensionServices: [
      webService(`${pages.origin}/busy`, { videoWidth: WIDTH, videoHeight: HEIGHT, videoFps: FPS, videoBitrate: KBPS }),
      ...(push ? [{ serviceName: 'rtmp_publish_service', errorHandlePolicy: 'error_ignore', serviceParam: { outputs: [{ rtmpUrl: `rtmp://127.0.0.1:${rtmpPort}/live/bench` }] } }] : []),
    ],
  });
  const started = (sid: string) => h.events.some((e) => e.payload.sid === sid && e.eventType === 70);
  const stop = async (s: Session) => {
    const r = await h.api('POST', web.path(s.resourceId, s.sid, 'stop'), { cname: s.cname, uid: '7001', clientRequest: {} });
    if (r.status !== 200) throw new Error(`stop ${s.sid}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  // When each slice first appeared in the bucket (wall clock, ms), for the lag behind its media.
  const arrivals = new Map<string, number>();
  const tracker = setInterval(() => {
    for (const k of bucketKeys(h.bucketDir)) {
      const name = k.split('/').pop()!;
      if (name.endsWith('.ts') && !arrivals.has(name)) arrivals.set(name, Date.now());
    }
  }, 200);
  const pipeline = (byName: Map<string, number>) => [...byName].filter(([n]) => n !== 'node').reduce((s, [, c]) => s + c, 0);
  try {
    const base = await baselineCores(dir, { width: WIDTH, height: HEIGHT, fps: FPS, kbps: KBPS, seconds: 20 });
    console.log(`baseline (one ffmpeg, testsrc2 + sine, ${WIDTH}x${HEIGHT}@${FPS}, ${KBPS} kb/s, same encoder settings): ${base.toFixed(3)} cores (load average ${loadAverage()})`);

    // 1. One session with a CDN push.
    const t0 = performance.now();
    const one: Session = { cname: 'bench-web-1', ...(await web.start('bench-web-1', '7001', { storageConfig: storageConfig(), extensionServiceConfig: service(true) })) };
    const answered = performance.now() - t0;
    let firstSlice = Number.NaN;
    const watch = setInterval(() => {
      if (Number.isNaN(firstSlice) && bucketKeys(h.bucketDir).some((k) => k.includes(one.sid) && k.endsWith('.ts'))) firstSlice = performance.now() - t0;
    }, 100);
    await waitUntil(() => started(one.sid), { timeoutMs: 60_000, intervalMs: 200, what: 'page loaded (70)' });
    await sleep(WARMUP_MS);
    const loadBefore = loadAverage();
    const m = await measureCores(() => [process.pid], SECONDS, () => (receiver.pid ? [receiver.pid] : []));
    const loadAfter = loadAverage();
    await waitUntil(() => !Number.isNaN(firstSlice), { timeoutMs: 120_000, intervalMs: 200, what: 'first slice' });
    clearInterval(watch);
    const s0 = performance.now();
    await stop(one);
    const stopMs = performance.now() - s0;
    const rt = await realTime(h, one, arrivals);
    const cores = pipeline(m.byName);
    console.log(`one session ${WIDTH}x${HEIGHT}@${FPS} with a CDN push, ${SECONDS} s measured (load average ${loadBefore} before, ${loadAfter} after):`);
    console.log(`  pipeline (browser, display, sound, encoder, pusher): ${cores.toFixed(3)} cores = ${(cores / base).toFixed(2)} × the baseline`);
    for (const [name, c] of [...m.byName].sort((a, b) => b[1] - a[1]).filter(([, c]) => c >= 0.003)) console.log(`    ${name.padEnd(18)} ${c.toFixed(3)}`);
    console.log(`  start answered ${answered.toFixed(0)} ms; first slice in the bucket ${(firstSlice / 1000).toFixed(1)} s after start; synchronous stop ${stopMs.toFixed(0)} ms`);
    console.log(`  real time: ${fmt(rt)} → ${holds(rt) ? 'holds' : 'does NOT hold'}`);

    // 2. Capacity: n sessions at once until one falls behind.
    let held = holds(rt) ? 1 : 0;
    for (let n = 2; n <= MAX_SESSIONS && held === n - 1; n++) {
      const sessions: Session[] = [];
      for (let i = 0; i < n; i++) {
        const cname = `bench-web-${n}-${i}`;
        sessions.push({ cname, ...(await web.start(cname, '7001', { storageConfig: storageConfig(), extensionServiceConfig: service(false) })) });
      }
      await waitUntil(() => sessions.every((s) => started(s.sid)), { timeoutMs: 120_000, intervalMs: 200, what: `${n} pages loaded` });
      await sleep(WARMUP_MS);
      const lb = loadAverage();
      const mc = await measureCores(() => [process.pid], CAPACITY_SECONDS, () => (receiver.pid ? [receiver.pid] : []));
      for (const s of sessions) await stop(s);
      const results = [];
      for (const s of sessions) results.push(await realTime(h, s, arrivals));
      const all = results.every(holds);
      console.log(`${n} sessions at once, ${CAPACITY_SECONDS} s (load average ${lb} before): pipeline ${pipeline(mc.byName).toFixed(3)} cores; ${all ? 'all hold real time' : 'NOT all hold real time'}`);
      for (const [i, r] of results.entries()) console.log(`  session ${i + 1}: ${fmt(r)}`);
      if (all) held = n;
    }
    console.log(`sessions held in real time here: ${held}${held === MAX_SESSIONS ? ` (the most tried; BENCH_MAX_SESSIONS)` : ''}`);
  } finally {
    clearInterval(tracker);
    await h.close();
    receiver.kill('SIGKILL');
    await pages.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
