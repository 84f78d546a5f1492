/**
 * Live mix pipeline benchmark: N publishers of 320×180@15 VP8 composed into 640×360@15 H.264 (best fit); with
 * `--audio` each also sends Opus, mixed into AAC. The same looped input file is sent as RTP (ffmpeg -c copy, not
 * counted) to the pipeline: one ffmpeg decoder per user and kind, the TypeScript compositor and mixer on the frame
 * clock, one encoder. CPU counted: this Node process (RTP forwarding, compositing, mixing) plus the decoder and
 * encoder children, read from /proc. Baseline in the same run: one ffmpeg that reads the same N files in real time
 * and composes them with scale + xstack (+ amix) into the same geometry with the same encoder settings (the
 * single-graph design ARCHITECTURE.md measured).
 *
 *   npm run bench:mix-pipeline [-- N ... [--audio] [--no-baseline]]        (default 4 17; BENCH_SECONDS=20)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/clock/index.ts';
import { FfmpegProcess, runFfmpeg } from '../../src/media/ffmpeg.ts';
import { completeMixLayoutSettings, layout, MIX_LAYOUT, mixAudioProfile } from '../../src/media/mix/index.ts';
import { MixPipeline, mixEncoderArgs } from '../../src/media/mix/live/index.ts';
import { publishTo, type RtpSource } from '../../src/media/mix/live/testing/rtp-source.ts';
import { childrenOf } from '../../src/process/index.ts';
import { cpuSecondsOf, ownCpuSeconds } from '../mix/proc-cpu.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const WARMUP_SECONDS = 3;
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
/** `--no-baseline`: the pipeline alone (for profiling it). */
const WITH_BASELINE = !process.argv.includes('--no-baseline');
/** `--audio`: every publisher also sends Opus; the pipeline mixes it, the baseline adds `amix`. */
const WITH_AUDIO = process.argv.includes('--audio');
const NS = counts.length > 0 ? counts : [4, 17];
const CANVAS = { width: 640, height: 360 };
const FPS = 15;
const BITRATE_KBPS = 800;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** utime + stime (s) of each of these processes that still runs. */
function cpuOf(pids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const cpu = cpuSecondsOf(pid);
    if (cpu !== undefined) out.set(pid, cpu);
  }
  return out;
}

const ownCpu = ownCpuSeconds;

type Part = 'node' | 'videoDecoders' | 'audioDecoders' | 'encoder' | 'baseline';

function partOf(argv: readonly string[]): Part | undefined {
  if (argv.some((a) => a.includes('xstack'))) return 'baseline';
  if (argv.includes('rtp') && argv.includes('copy')) return undefined; // the test senders
  // Video decoders read RTP through an SDP file; audio decoders Ogg on fd 3 (before that change, RTP too).
  const format = argv[argv.indexOf('-i') - 1];
  if (format === 'ogg') return 'audioDecoders';
  const sdp = argv.find((a) => a.endsWith('.sdp'));
  if (sdp) return /\/video-[^/]*\.sdp$/.test(sdp) ? 'videoDecoders' : 'audioDecoders';
  if (argv.includes('pipe:3') && argv.includes('libx264')) return 'encoder';
  return undefined;
}

/**
 * Cores used over `seconds` by this process and its children, by part. The process table is scanned only at the
 * start and the end (scanning it costs this process CPU too); children found at the start are read every 2 s so
 * that one that exits meanwhile still counts up to its last reading.
 */
async function measure(seconds: number): Promise<Record<Part, number>> {
  const scan = (): Map<number, Part> => {
    const out = new Map<number, Part>();
    for (const c of childrenOf(process.pid)) {
      const part = partOf(c.argv);
      if (part) out.set(c.pid, part);
    }
    return out;
  };
  const parts = scan();
  const start = cpuOf([...parts.keys()]);
  const self0 = ownCpu();
  const t0 = performance.now();
  const last = new Map(start);
  const until = t0 + seconds * 1000;
  while (performance.now() < until) {
    await sleep(Math.min(2000, Math.max(0, until - performance.now())));
    for (const [pid, cpu] of cpuOf([...parts.keys()])) last.set(pid, cpu);
  }
  for (const [pid, part] of scan()) if (!parts.has(pid)) parts.set(pid, part); // started meanwhile (a restart)
  for (const [pid, cpu] of cpuOf([...parts.keys()])) last.set(pid, cpu);
  const elapsed = (performance.now() - t0) / 1000;
  const cores: Record<Part, number> = { node: (ownCpu() - self0) / elapsed, videoDecoders: 0, audioDecoders: 0, encoder: 0, baseline: 0 };
  for (const [pid, cpu] of last) cores[parts.get(pid)!] += (cpu - (start.get(pid) ?? 0)) / elapsed;
  return cores;
}

interface PipelineFigures {
  readonly parts: Record<Part, number>;
  readonly decodedFps: number;
  readonly outputFps: number;
}

async function pipelineRun(n: number, input: string, dir: string): Promise<PipelineFigures> {
  const pipeline = new MixPipeline(
    {
      workDir: join(dir, `pipeline-${n}`),
      clock: systemClock,
      canvas: CANVAS,
      fps: FPS,
      bitrateKbps: BITRATE_KBPS,
      audioProfile: mixAudioProfile(0),
      settings: completeMixLayoutSettings({ kind: MIX_LAYOUT.bestFit }),
      streams: { audio: WITH_AUDIO, video: true },
    },
    { onSlice: () => undefined },
  );
  const sources: RtpSource[] = [];
  try {
    for (let i = 0; i < n; i++) pipeline.join(`u${i}`);
    pipeline.start();
    for (let i = 0; i < n; i++) {
      sources.push(await publishTo(pipeline, `u${i}`, { kind: 'vp8', file: input }));
      if (WITH_AUDIO) sources.push(await publishTo(pipeline, `u${i}`, { kind: 'opus', file: input }));
    }
    await sleep(WARMUP_SECONDS * 1000);
    const decoded0 = pipeline.decodedVideoFrames;
    const frames0 = pipeline.framesWritten;
    const t0 = performance.now();
    const parts = await measure(SECONDS);
    const elapsed = (performance.now() - t0) / 1000;
    return { parts, decodedFps: (pipeline.decodedVideoFrames - decoded0) / elapsed / n, outputFps: (pipeline.framesWritten - frames0) / elapsed };
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
  const audio = WITH_AUDIO ? mixAudioProfile(0) : null;
  const encoder = mixEncoderArgs({ workDir: dir, canvas: CANVAS, fps: FPS, bitrateKbps: BITRATE_KBPS, audio, video: true, originMs: 0 });
  // The mix encoder's output options with our own maps: from its first codec option on, the segment list going
  // to a file.
  const output = encoder
    .slice(encoder.indexOf('-c:v'))
    .filter((a, i, all) => !(a === '-map' || all[i - 1] === '-map'))
    .map((a) => (a === 'pipe:5' ? join(dir, `baseline-${n}.csv`) : a));
  const mix = WITH_AUDIO ? [`${regions.map((_, i) => `[${i}:a]`).join('')}amix=inputs=${n}:normalize=0[a]`] : [];
  const maps = ['-map', '[v]', ...(WITH_AUDIO ? ['-map', '[a]'] : [])];
  const args = ['-loglevel', 'error', ...inputs, '-filter_complex', [...scaled, stack, pad, ...mix].join(';'), ...maps, '-r', String(FPS), ...output];
  const ffmpeg = new FfmpegProcess(args, { cwd: dir });
  try {
    await sleep(WARMUP_SECONDS * 1000);
    return (await measure(SECONDS)).baseline;
  } finally {
    await ffmpeg.stop(3000);
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mix-pipeline-'));
  try {
    const input = join(dir, 'input.webm');
    await runFfmpeg([
      '-f', 'lavfi', '-i', `testsrc2=s=320x180:r=${FPS}`, '-f', 'lavfi', '-i', 'sine=f=440:r=48000', '-t', '10',
      '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '200k', '-g', String(2 * FPS),
      '-c:a', 'libopus', '-b:a', '32k', '-ac', '2', input,
    ]);
    const what = WITH_AUDIO ? 'video + Opus → AAC 48 kb/s' : 'video only';
    console.log(`mix pipeline: N × 320×180@15 VP8 → ${CANVAS.width}×${CANVAS.height}@${FPS} H.264 ${BITRATE_KBPS} kb/s, best fit, ${what}, ${SECONDS} s each`);
    console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    console.log('N\tpipeline cores (node + video decoders + audio decoders + encoder)\tbaseline (xstack) cores\tratio\tdecoded fps/input\toutput fps');
    for (const n of NS) {
      const pipeline = await pipelineRun(n, input, dir);
      const baseline = WITH_BASELINE ? await baselineRun(n, input, dir) : NaN;
      const { node, videoDecoders, audioDecoders, encoder } = pipeline.parts;
      const total = node + videoDecoders + audioDecoders + encoder;
      console.log(
        `${n}\t${total.toFixed(3)} (${node.toFixed(3)} + ${videoDecoders.toFixed(3)} + ${audioDecoders.toFixed(3)} + ${encoder.toFixed(3)})\t${baseline.toFixed(3)}\t${(total / baseline).toFixed(2)}\t${pipeline.decodedFps.toFixed(1)}\t${pipeline.outputFps.toFixed(1)}\tload ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
