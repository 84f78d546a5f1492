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
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapture, type CaptureChildName, type CaptureEvent } from '../src/media/capture/index.ts';
import { freePort, rtmpReceiver } from '../src/media/capture/testing/rtmp-receiver.ts';
import { FfmpegProcess } from '../src/media/ffmpeg.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const PUSH = process.env.BENCH_PUSH === '1';
const WARMUP_MS = 4000;
const WIDTH = 1280;
const HEIGHT = 720;
const FPS = 15;
const BITRATE_KBPS = 2000;
const TICK = 100; // USER_HZ on Linux

interface Proc {
  ppid: number;
  cpuSec: number;
  name: string;
}

function readProcs(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), { ppid: Number(f[1]), cpuSec: (Number(f[11]) + Number(f[12])) / TICK, name });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** CPU seconds so far of each process in the trees under `roots` (pid → seconds, name). */
function treeCpu(roots: readonly number[]): Map<number, Proc> {
  const all = readProcs();
  const inTree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of all) {
      if (inTree.has(p.ppid) && !inTree.has(pid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  return new Map([...all].filter(([pid]) => inTree.has(pid)));
}

/**
 * Cores used by the trees under `roots()` over `seconds`: per process, CPU at the end minus CPU at the start
 * (0 for a process that started meanwhile). Sampled every 500 ms so processes that exit still count.
 */
async function measureCores(roots: () => number[], seconds: number): Promise<{ cores: number; byName: Map<string, number> }> {
  const first = treeCpu(roots());
  const last = new Map(first);
  const t0 = process.hrtime.bigint();
  const timer = setInterval(() => {
    for (const [pid, p] of treeCpu(roots())) last.set(pid, p);
  }, 500);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  for (const [pid, p] of treeCpu(roots())) last.set(pid, p);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const byName = new Map<string, number>();
  let total = 0;
  for (const [pid, p] of last) {
    const used = p.cpuSec - (first.get(pid)?.cpuSec ?? 0);
    total += used;
    byName.set(p.name, (byName.get(p.name) ?? 0) + used / wall);
  }
  return { cores: total / wall, byName };
}

const PAGE = `<!doctype html><html><body style="margin:0;overflow:hidden;background:#123">
<canvas id="c" width="${WIDTH}" height="${HEIGHT}"></canvas><script>
const ctx = new AudioContext(); const o = ctx.createOscillator(); o.frequency.value = 440; o.connect(ctx.destination); o.start();
const c = document.getElementById('c').getContext('2d');
function draw(t) {
  c.fillStyle = 'hsl(' + (t / 20 % 360) + ',60%,30%)'; c.fillRect(0, 0, ${WIDTH}, ${HEIGHT});
  for (let i = 0; i < 12; i++) { c.fillStyle = 'hsl(' + (i * 30) + ',80%,60%)';
    c.fillRect((t / 5 + i * 97) % ${WIDTH}, (i * 53 + t / 9) % ${HEIGHT}, 120, 80); }
  c.fillStyle = '#fff'; c.font = '48px sans-serif'; c.fillText(new Date().toISOString(), 40, 80);
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
if (navigator.notifyReady) navigator.notifyReady();
</script></body></html>`;

async function baseline(dir: string): Promise<number> {
  const ff = new FfmpegProcess(
    [
      '-loglevel', 'error', '-re',
      '-f', 'lavfi', '-i', `testsrc2=size=${WIDTH}x${HEIGHT}:rate=${FPS}`,
      '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-b:v', `${BITRATE_KBPS}k`, '-maxrate', `${BITRATE_KBPS}k`,
      '-bufsize', `${BITRATE_KBPS * 2}k`, '-g', String(FPS * 2), '-c:a', 'aac', '-b:a', '48k', '-ac', '1',
      '-f', 'segment', '-segment_time', '15', '-segment_format', 'mpegts', join(dir, 'base_%05d.ts'),
    ],
    { cwd: dir },
  );
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const { cores } = await measureCores(() => [ff.child.pid!], SECONDS);
  await ff.stop();
  return cores;
}

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
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
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
    await cap.load(`http://127.0.0.1:${port}/`);
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
    server.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-web-capture-'));
try {
  const base = await baseline(dir);
  const cap = await capture(dir);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
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
