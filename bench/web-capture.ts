/**
 * Web capture benchmark: CPU (in cores) of one capture at 1280×720@15 (Xvfb, PulseAudio, Chromium with all its
 * helper processes, and the encoder) recording an animated page with a tone, against a baseline measured in the
 * same run: one ffmpeg encoding a synthetic 1280×720@15 picture and tone with the same encoder settings and no
 * capture. CPU is utime+stime from /proc, summed over each process tree, over BENCH_SECONDS (default 20).
 *
 * With BENCH_PUSH=1 the capture also pushes to a loopback RTMP receiver (ffmpeg -listen 1, not counted), and
 * the encoder's and the pusher process's own shares are printed.
 *
 *   npm run bench:web-capture                (BENCH_SECONDS=20, BENCH_PUSH=1)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapture, type CaptureChildName, type CaptureEvent } from '../src/media/capture/index.ts';
import { startPageServer } from '../src/media/capture/testing/page-server.ts';
import { freePort, rtmpReceiver } from '../src/media/capture/testing/rtmp-receiver.ts';
import { baselineCores, loadAverage, measureCores, readProcs } from './web-cpu.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PUSH = process.env.BENCH_PUSH === '1';
const WARMUP_MS = 4000;
const WIDTH = 1280;
const HEIGHT = 720;
const FPS = 15;
const BITRATE_KBPS = 2000;

const baseline = (dir: string): Promise<number> =>
  baselineCores(dir, { width: WIDTH, height: HEIGHT, fps: FPS, kbps: BITRATE_KBPS, seconds: SECONDS });

interface CaptureFigures {
  cores: number;
  byName: Map<string, number>;
  segments: number;
  firstSegmentMs: number;
  holdCores: number;
  pauseMs: number;
  resumeToMediaMs: number;
  /** Cores of the encoder and (with a push) the pusher process alone, over the same window. */
  byRole: Map<CaptureChildName, number>;
  pushEvents: string[];
}

/** CPU seconds so far of one process (NaN once it has gone: a figure over a window it did not live through is none). */
function cpuOf(pid: number): number {
  return readProcs().get(pid)?.cpuSec ?? Number.NaN;
}

async function capture(dir: string): Promise<CaptureFigures> {
  const pages = await startPageServer({ busy: { colour: '#123', toneHz: 440, animation: true } });
  const events: CaptureEvent[] = [];
  const t0 = Date.now();
  let firstSegmentMs = NaN;
  const rtmpPort = PUSH ? await freePort() : 0;
  const receiver = PUSH ? rtmpReceiver(rtmpPort, join(dir, 'received.ts')) : undefined;
  if (receiver) await new Promise((r) => setTimeout(r, 1000));
  const cap = await startCapture(
    {
      workDir: dir,
      width: WIDTH,
      height: HEIGHT,
      videoFps: FPS,
      videoBitrateKbps: BITRATE_KBPS,
      ...(PUSH ? { rtmpUrl: `rtmp://127.0.0.1:${rtmpPort}/live/test` } : {}),
    },
    (e) => {
      if (e.kind === 'segment' && Number.isNaN(firstSegmentMs)) firstSegmentMs = Date.now() - t0;
      events.push(e);
    },
  );
  try {
    await cap.load(`${pages.origin}/busy`);
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    const roles = cap.children();
    const before = roles.map((c) => cpuOf(c.pid));
    const w0 = process.hrtime.bigint();
    const m = await measureCores(() => cap.pids(), SECONDS);
    const wall = Number(process.hrtime.bigint() - w0) / 1e9;
    const byRole = new Map(roles.map((c, i) => [c.name, (cpuOf(c.pid) - before[i]!) / wall] as const));
    const pushEvents = events.flatMap((e) => (e.kind.startsWith('push-') ? [e.kind.slice(5)] : []));
    const segments = events.filter((e) => e.kind === 'segment').length;
    // onhold: how long pause() takes (the encoder flushes its segment), what the idle page costs, and how soon
    // after resume() the new run's first media sample is.
    const p0 = Date.now();
    await cap.pause();
    const pauseMs = Date.now() - p0;
    const hold = await measureCores(() => cap.pids(), 5);
    const resumedAt = Date.now();
    await cap.resume();
    const first = await new Promise<number>((resolve) => {
      const t = setInterval(() => {
        const s = events.find((e) => e.kind === 'segment' && e.segment.run === 1);
        if (s?.kind === 'segment') {
          clearInterval(t);
          resolve(s.segment.startMs);
        }
      }, 200);
    });
    return { ...m, segments, firstSegmentMs, holdCores: hold.cores, pauseMs, resumeToMediaMs: first - resumedAt, byRole, pushEvents };
  } finally {
    await cap.stop();
    receiver?.kill('SIGKILL');
    await pages.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-web-capture-'));
try {
  const base = await baseline(dir);
  const cap = await capture(dir);
  const load = loadAverage();
  console.log(`web capture ${WIDTH}x${HEIGHT}@${FPS}, ${BITRATE_KBPS} kb/s, ${SECONDS} s measured after ${WARMUP_MS / 1000} s warm-up (load average ${load})`);
  console.log(`  baseline (ffmpeg, synthetic picture + tone, same encoder): ${base.toFixed(3)} cores`);
  console.log(`  capture (display + sound + browser + encoder):            ${cap.cores.toFixed(3)} cores`);
  console.log(`  ratio capture / baseline: ${(cap.cores / base).toFixed(2)}`);
  const rows = [...cap.byName].sort((a, b) => b[1] - a[1]).filter(([, c]) => c >= 0.005);
  for (const [name, cores] of rows) console.log(`    ${name.padEnd(16)} ${cores.toFixed(3)} cores`);
  const role = (n: CaptureChildName) => {
    const v = cap.byRole.get(n);
    return v === undefined || Number.isNaN(v) ? 'n/a (not running through the window)' : v.toFixed(3);
  };
  console.log(`  encoder process alone: ${role('encoder')} cores${PUSH ? `; pusher process alone: ${role('pusher')} cores (push statuses: ${cap.pushEvents.join(' → ')})` : ''}`);
  const pushShare = (cap.byRole.get('pusher') ?? Number.NaN) / (cap.byRole.get('encoder') ?? Number.NaN);
  if (PUSH && Number.isFinite(pushShare)) console.log(`  ratio pusher / encoder: ${pushShare.toFixed(3)}`);
  console.log(`  segments closed: ${cap.segments}; start → first segment reported: ${cap.firstSegmentMs} ms`);
  console.log(`  onhold: pause() ${cap.pauseMs} ms; on hold ${cap.holdCores.toFixed(3)} cores; resume() → first media of the new run ${cap.resumeToMediaMs} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
