/**
 * Live mix pipeline benchmark: N publishers of 320×180@15 VP8 composed into 640×360@15 H.264 (best fit), video
 * only. The same looped input file is sent as RTP (ffmpeg -c copy, not counted) to the pipeline: one ffmpeg
 * decoder per user, the TypeScript compositor on the frame clock, one x264 veryfast encoder. CPU counted: this
 * Node process (RTP forwarding, compositing) plus the decoder and encoder children, read from /proc. Baseline in
 * the same run: one ffmpeg that reads the same N files in real time and composes them with scale + xstack into
 * the same geometry with the same encoder settings (the single-graph design ARCHITECTURE.md measured).
 *
 *   npm run bench:mix-pipeline [-- N ...]        (default 4 17; BENCH_SECONDS=20)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/clock/index.ts';
import { FfmpegProcess, runFfmpeg } from '../../src/media/ffmpeg.ts';
import { completeMixLayoutSettings, layout, MIX_LAYOUT, mixAudioProfile } from '../../src/media/mix/index.ts';
import { MixPipeline, mixEncoderArgs } from '../../src/media/mix/live/index.ts';
import { type RtpSource, startRtpSource } from '../../src/media/mix/live/testing/rtp-source.ts';
import { childrenOf } from '../../src/process/index.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = 3;
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const NS = counts.length > 0 ? counts : [4, 17];
const CANVAS = { width: 640, height: 360 };
const FPS = 15;
const BITRATE_KBPS = 800;
const TICK = 100; // USER_HZ

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** CPU seconds of this process's children whose command line passes `keep`, by pid. */
function childCpu(keep: (argv: readonly string[]) => boolean): Map<number, number> {
  const out = new Map<number, number>();
  for (const child of childrenOf(process.pid)) {
    if (!keep(child.argv)) continue;
    try {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(child.pid, (Number(f[11]) + Number(f[12])) / TICK);
    } catch {
      /* gone */
    }
  }
  return out;
}

const ownCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Cores used over `seconds` by this process (optional) and the matching children, sampled while they run. */
async function measure(seconds: number, keep: (argv: readonly string[]) => boolean, includeSelf: boolean): Promise<number> {
  const start = childCpu(keep);
  const self0 = ownCpu();
  const t0 = performance.now();
  const last = new Map(start);
  const until = t0 + seconds * 1000;
  while (performance.now() < until) {
    await sleep(500);
    for (const [pid, cpu] of childCpu(keep)) last.set(pid, cpu);
  }
  const elapsed = (performance.now() - t0) / 1000;
  let cpu = includeSelf ? ownCpu() - self0 : 0;
  for (const [pid, value] of last) cpu += value - (start.get(pid) ?? 0);
  return cpu / elapsed;
}

const isSender = (argv: readonly string[]): boolean => argv.includes('rtp') && argv.includes('copy');

async function pipelineRun(n: number, input: string, dir: string): Promise<{ cores: number; decodedFps: number; outputFps: number }> {
  const pipeline = new MixPipeline(
    {
      workDir: join(dir, `pipeline-${n}`),
      clock: systemClock,
      canvas: CANVAS,
      fps: FPS,
      bitrateKbps: BITRATE_KBPS,
      audioProfile: mixAudioProfile(0),
      settings: completeMixLayoutSettings({ kind: MIX_LAYOUT.bestFit }),
      streams: { audio: false, video: true },
    },
    { onSlice: () => undefined },
  );
  const sources: RtpSource[] = [];
  try {
    for (let i = 0; i < n; i++) pipeline.join(`u${i}`);
    pipeline.start();
    for (let i = 0; i < n; i++) {
      let source: RtpSource | undefined;
      source = await startRtpSource({ kind: 'vp8', file: input }, (p) => {
        if (source) pipeline.pushRtp(`u${i}`, 'video', source.track, p);
      });
      sources.push(source);
    }
    await sleep(WARMUP_SECONDS * 1000);
    const decoded0 = pipeline.decodedVideoFrames;
    const frames0 = pipeline.framesWritten;
    const t0 = performance.now();
    const cores = await measure(SECONDS, (argv) => !isSender(argv), true);
    const elapsed = (performance.now() - t0) / 1000;
    return { cores, decodedFps: (pipeline.decodedVideoFrames - decoded0) / elapsed / n, outputFps: (pipeline.framesWritten - frames0) / elapsed };
  } finally {
    await Promise.all(sources.map((s) => s.stop()));
    await pipeline.stop();
  }
}

/** One ffmpeg: N real-time file inputs → scale each to its best-fit cell → xstack → the mix encoder's settings. */
async function baselineRun(n: number, input: string, dir: string): Promise<number> {
  const regions = layout(MIX_LAYOUT.bestFit, CANVAS, Array.from({ length: n }, (_, i) => `u${i}`)).filter((r) => r.uid !== null);
  const inputs = regions.flatMap(() => ['-stream_loop', '-1', '-re', '-i', input]);
  const scaled = regions.map((r, i) => `[${i}:v]scale=${r.rect.width}:${r.rect.height}:flags=bilinear[s${i}]`);
  const stack = `${regions.map((_, i) => `[s${i}]`).join('')}xstack=inputs=${n}:fill=black:layout=${regions.map((r) => `${r.rect.x}_${r.rect.y}`).join('|')}[x]`;
  const pad = `[x]pad=${CANVAS.width}:${CANVAS.height}[v]`;
  const encoder = mixEncoderArgs({ workDir: dir, canvas: CANVAS, fps: FPS, bitrateKbps: BITRATE_KBPS, audio: null, video: true, originMs: 0 });
  // The mix encoder's output half: everything after its inputs, with the segment list going nowhere.
  const output = encoder.slice(encoder.indexOf('-map') + 2).map((a) => (a === 'pipe:5' ? join(dir, `baseline-${n}.csv`) : a));
  const args = ['-loglevel', 'error', ...inputs, '-filter_complex', [...scaled, stack, pad].join(';'), '-map', '[v]', '-r', String(FPS), ...output];
  const ffmpeg = new FfmpegProcess(args, { cwd: dir });
  try {
    await sleep(WARMUP_SECONDS * 1000);
    return await measure(SECONDS, (argv) => argv.some((a) => a.includes('xstack')), false);
  } finally {
    await ffmpeg.stop(3000);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mix-pipeline-'));
  try {
    const input = join(dir, 'input.webm');
    await runFfmpeg(['-f', 'lavfi', '-i', `testsrc2=s=320x180:r=${FPS}`, '-t', '10', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k', '-g', String(2 * FPS), input]);
    console.log(`mix pipeline: N × 320×180@15 VP8 → ${CANVAS.width}×${CANVAS.height}@${FPS} H.264 ${BITRATE_KBPS} kb/s, best fit, video only, ${SECONDS} s each`);
    console.log('N\tpipeline cores\tbaseline (xstack) cores\tratio\tdecoded fps/input\toutput fps');
    for (const n of NS) {
      const pipeline = await pipelineRun(n, input, dir);
      const baseline = await baselineRun(n, input, dir);
      console.log(
        `${n}\t${pipeline.cores.toFixed(3)}\t${baseline.toFixed(3)}\t${(pipeline.cores / baseline).toFixed(2)}\t${pipeline.decodedFps.toFixed(1)}\t${pipeline.outputFps.toFixed(1)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
