/**
 * Mix recording benchmark (docs/recording-mix.md, "Benchmark: mix recording"): real mix recordings through the
 * recording API of an in-process reeltime, fed by synthetic WHIP publishers that run in their own process
 * (bench/mix/publishers.ts), so the recorder's CPU is counted apart from theirs.
 *
 * Part 1, cost: 4 publishers (640×360@15, two VP8, two H.264, Opus tones) → a 640×360@15 H.264 best-fit mix.
 * Counted: this process's CPU while recording minus the same server with the same publishers and no recording
 * (WebRTC forwarding and receive, compositing, mixing), plus every decoder and the encoder child, from /proc.
 * Floor, in the same run: one ffmpeg that reads the same four publishers' media from files in real time (encoded
 * beforehand with the publishers' own ffmpeg arguments), decodes them, scales and stacks them (xstack, amix) and
 * encodes with the mix encoder's own arguments. Target: recorder ≤ 1.2 × floor.
 *
 * Part 2, scale: N publishers at 320×180 into 640×360@15 for N = 17, 12, 8, 4 until one keeps real time (output
 * frames per second of wall time, encoder backlog, every input decoded at the rate it is sent); and the latency
 * from a publisher's frame leaving its ffmpeg to the same frame going into the encoder pipe (each publisher draws
 * its frame number as a binary code, read back from the composed canvases).
 *
 *   npm run bench:mix [-- [--part 1|2] [--seconds S] [--quick] [--size WxH] [N ...]]
 *   (defaults: both parts, 60 s windows (--quick: 20 s), part 1 publishers 640x360, part 2 N = 17 12 8 4)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FRAME_CODE } from '../../src/channel/index.ts';
import type { MixRegion } from '../../src/media/mix/index.ts';
import { MixPipeline, type MixOutputFrame } from '../../src/media/mix/live/index.ts';
import { startHarness, type Harness } from '../../src/recorders/individual/testing/harness.ts';
import { sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { measureCpu, type CpuFigures } from './cpu-parts.ts';
import { floorRun } from './floor.ts';
import { loadAverage } from './proc-cpu.ts';
import { BENCH_BITRATE_KBPS, BENCH_CANVAS, BENCH_FPS, BENCH_RECORDER_UID, benchMixStartRequest } from './mix-request.ts';
import type { PublisherPlan } from './publishers.ts';
import { startPublishersProcess } from './publishers-process.ts';
import { waitUntil } from '../../src/testing/wait.ts';

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const QUICK = argv.includes('--quick');
const SECONDS = Number(option('--seconds') ?? process.env.BENCH_SECONDS ?? (QUICK ? 20 : 60));
const PART = option('--part');
/** Part 1's publisher size (`--size WxH`, default 640x360). */
const PART1_SIZE = (() => {
  const [width, height] = (option('--size') ?? '640x360').split('x').map(Number);
  if (!(width! > 0 && height! > 0)) throw new RangeError('--size must be WIDTHxHEIGHT, e.g. 320x180');
  return { width: width!, height: height! };
})();
const NS = (() => {
  const ns = argv.filter((a, i) => /^\d+$/.test(a) && !['--seconds', '--part', '--size'].includes(argv[i - 1]!)).map(Number);
  return ns.length > 0 ? ns : [17, 12, 8, 4];
})();
const BASELINE_SECONDS = 20;
const WARMUP_SECONDS = 3;
/**
 * The server with its publishers and no recording settles this long before the first baseline window: its first
 * seconds (handshakes, keyframe requests, code not yet optimised) cost 0.01–0.03 core more than later ones, which
 * made the baseline too high and the recorder's Node share too small.
 */
const SETTLE_SECONDS = 15;
const CANVAS = BENCH_CANVAS;
const FPS = BENCH_FPS;
const BITRATE_KBPS = BENCH_BITRATE_KBPS;
const COLOURS = ['red', 'blue', 'green', 'yellow', 'magenta', 'cyan', 'orange', 'purple', 'white', 'gray', 'pink', 'brown', 'navy', 'olive', 'teal', 'maroon', 'lime'];

// The recorder builds its MixPipeline inside the session; the benchmark watches the one it starts.
const pipelines: MixPipeline[] = [];
const startPipeline = MixPipeline.prototype.start;
MixPipeline.prototype.start = function (this: MixPipeline): void {
  pipelines.push(this);
  startPipeline.call(this);
};

// ---------------------------------------------------------------------------------------------------------------
// Publishers in their own process

interface Publishers {
  readonly pid: number;
  /** Per uid: frame index → send time (ms). */
  readonly sent: Map<number, Map<number, number>>;
  stop(): Promise<void>;
}

function users(n: number, size: { width: number; height: number }, codecs: 'mixed' | 'vp8'): PublisherPlan[] {
  return Array.from({ length: n }, (_, i) => ({
    uid: 1000 + i,
    color: COLOURS[i % COLOURS.length]!,
    toneHz: 300 + 60 * i,
    codec: codecs === 'mixed' && i % 2 === 1 ? 'h264' : 'vp8',
    ...size,
  }));
}

async function startPublishers(baseUrl: string, cname: string, plan: readonly PublisherPlan[]): Promise<Publishers> {
  const sent = new Map<number, Map<number, number>>(plan.map((u) => [u.uid, new Map()]));
  const p = await startPublishersProcess({ baseUrl, cname, fps: FPS, frameCode: true, users: plan }, (frames) => {
    for (const [uid, index, at] of frames) sent.get(uid)?.set(index, at);
  });
  return { pid: p.pid, sent, stop: () => p.stop() };
}

// ---------------------------------------------------------------------------------------------------------------
// Frame codes at the encoder input

/** The frame code drawn by the publisher in `rect` of a composed canvas, or undefined where none is readable. */
function readFrameCode(frame: MixOutputFrame, rect: MixRegion['rect']): number | undefined {
  const canvas = frame.video!;
  const y = rect.y + Math.floor(rect.height * (1 - FRAME_CODE.bandFraction / 2));
  let code = 0;
  for (let k = 0; k < FRAME_CODE.bits; k++) {
    const x = rect.x + Math.floor((rect.width * (k + 0.5)) / FRAME_CODE.bits);
    const luma = canvas.y[y * canvas.width + x]!;
    if (luma > 60 && luma < 180) return undefined; // not the code band (background, another picture)
    if (luma >= 180) code |= 1 << k;
  }
  return code;
}

interface Sighting {
  readonly uid: number;
  readonly code: number;
  readonly atMs: number;
}

/** Every change of each user's frame code in the composed canvases, with the time the canvas went to the encoder. */
class FrameCodeWatcher {
  readonly sightings: Sighting[] = [];
  readonly #last = new Map<string, number>();
  recording = false;

  onFrame(frame: MixOutputFrame): void {
    if (!this.recording || !frame.video) return;
    const at = Date.now();
    for (const r of frame.regions) {
      if (r.uid === null) continue;
      const code = readFrameCode(frame, r.rect);
      if (code === undefined || this.#last.get(r.uid) === code) continue;
      this.#last.set(r.uid, code);
      this.sightings.push({ uid: Number(r.uid), code, atMs: at });
    }
  }
}

interface LatencyFigures {
  readonly count: number;
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  /** Median of the first and the second half of the window: a growing latency means falling behind. */
  readonly firstHalfMedianMs: number;
  readonly secondHalfMedianMs: number;
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

/** Each sighting matched to the newest frame with that code sent before it. */
function latencies(sightings: readonly Sighting[], sent: Map<number, Map<number, number>>): LatencyFigures {
  const modulo = 2 ** FRAME_CODE.bits;
  const out: number[] = [];
  for (const s of sightings) {
    const frames = sent.get(s.uid);
    if (!frames) continue;
    let newest = -1;
    for (const i of frames.keys()) if (i > newest) newest = i;
    for (let n = Math.floor(newest / modulo) * modulo + s.code; n >= 0; n -= modulo) {
      const at = frames.get(n);
      if (at !== undefined && at <= s.atMs) {
        if (s.atMs - at < 10_000) out.push(s.atMs - at);
        break;
      }
    }
  }
  const half = Math.floor(out.length / 2);
  const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 0.5);
  const sorted = [...out].sort((a, b) => a - b);
  return {
    count: out.length,
    medianMs: median(out),
    p95Ms: percentile(sorted, 0.95),
    maxMs: sorted.at(-1) ?? NaN,
    firstHalfMedianMs: median(out.slice(0, half)),
    secondHalfMedianMs: median(out.slice(half)),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// One mix recording

interface RecordingFigures {
  readonly cpu: CpuFigures;
  /**
   * This process without a recording (same server, same publishers), cores: the mean of a window before the
   * recording and one after it (on a shared machine the other load drifts; one window before gave ±0.02 core).
   */
  readonly baselineNode: number;
  readonly baselineNodeBefore: number;
  readonly baselineNodeAfter: number;
  readonly outputFps: number;
  readonly decodedFpsPerInput: number;
  readonly sentFpsPerInput: number;
  readonly maxBacklogFrames: number;
  readonly endBacklogFrames: number;
  readonly latency: LatencyFigures;
}

async function recordMix(h: Harness, cname: string, plan: readonly PublisherPlan[]): Promise<RecordingFigures> {
  const publishers = await startPublishers(h.server.url, cname, plan);
  try {
    await sleep(SETTLE_SECONDS * 1000);
    const baseline = await measureCpu(BASELINE_SECONDS);
    const before = pipelines.length;
    const rec = await h.startRecording(cname, BENCH_RECORDER_UID, benchMixStartRequest(cname));
    const pipeline = await waitUntil(() => pipelines.length > before && pipelines.at(-1), { timeoutMs: 30_000, intervalMs: 200, what: 'the mix pipeline' });
    const watcher = new FrameCodeWatcher();
    const unobserve = pipeline.observeFrames((f) => watcher.onFrame(f));
    const stopRecording = async (): Promise<void> => {
      const stop = await h.api('POST', h.path(rec.resourceId, rec.sid, 'stop'), { cname, uid: BENCH_RECORDER_UID, clientRequest: {} });
      if (stop.status !== 200) throw new Error(`stop: ${stop.status} ${JSON.stringify(stop.body)}`);
    };
    try {
      // Everyone's video in: two seconds of frames per user decoded.
      await waitUntil(() => pipeline.decodedVideoFrames >= plan.length * 2 * FPS, { timeoutMs: 240_000, intervalMs: 200, what: 'every user decoded' }).catch((e: Error) => {
        const who = pipeline.roster.map((u) => `${u.uid}:${u.video.kind}`).join(' ');
        // The recording is stopped before the error goes up, so a smaller N starts on a quiet server.
        const error = new Error(`${e.message}: ${pipeline.decodedVideoFrames} frames decoded, ${pipeline.framesWritten} composed, users ${who || 'none'}`);
        return stopRecording().then(
          () => Promise.reject(error),
          () => Promise.reject(error),
        );
      });
      await sleep(WARMUP_SECONDS * 1000);
      const frameBytes = (CANVAS.width * CANVAS.height * 3) / 2;
      let maxBacklog = 0;
      const sentBefore = [...publishers.sent.values()].reduce((a, m) => a + m.size, 0);
      const decoded0 = pipeline.decodedVideoFrames;
      const frames0 = pipeline.framesWritten;
      watcher.recording = true;
      const cpu = await measureCpu(SECONDS, () => (maxBacklog = Math.max(maxBacklog, pipeline.encoderBacklogBytes)));
      watcher.recording = false;
      const sentAfter = [...publishers.sent.values()].reduce((a, m) => a + m.size, 0);
      const n = plan.length;
      const figures: RecordingFigures = {
        cpu,
        baselineNode: baseline.node,
        baselineNodeBefore: baseline.node,
        baselineNodeAfter: NaN,
        outputFps: (pipeline.framesWritten - frames0) / cpu.seconds,
        decodedFpsPerInput: (pipeline.decodedVideoFrames - decoded0) / cpu.seconds / n,
        sentFpsPerInput: (sentAfter - sentBefore) / cpu.seconds / n,
        maxBacklogFrames: maxBacklog / frameBytes,
        endBacklogFrames: pipeline.encoderBacklogBytes / frameBytes,
        latency: latencies(watcher.sightings, publishers.sent),
      };
      await stopRecording();
      // The same server and publishers without the recording again, after its decoders and encoder have gone.
      await sleep(2000);
      const after = await measureCpu(BASELINE_SECONDS);
      return { ...figures, baselineNodeAfter: after.node, baselineNode: (baseline.node + after.node) / 2 };
    } finally {
      unobserve();
    }
  } finally {
    await publishers.stop();
  }
}

const recorderCores = (f: RecordingFigures): number => Math.max(0, f.cpu.node - f.baselineNode) + f.cpu.parts.videoDecoders + f.cpu.parts.audioDecoders + f.cpu.parts.encoder;

// ---------------------------------------------------------------------------------------------------------------

const f3 = (x: number): string => x.toFixed(3);

function describe(f: RecordingFigures): string {
  const p = f.cpu.parts;
  const l = f.latency;
  return [
    `  recorder ${f3(recorderCores(f))} cores = node ${f3(Math.max(0, f.cpu.node - f.baselineNode))} (server ${f3(f.cpu.node)} − ${f3(f.baselineNode)} without recording, mean of ${f3(f.baselineNodeBefore)} before and ${f3(f.baselineNodeAfter)} after)` +
      ` + video decoders ${f3(p.videoDecoders)} + audio decoders ${f3(p.audioDecoders)} + encoder ${f3(p.encoder)}`,
    `  publishers (own process, not counted) ${f3(p.publishers)} cores`,
    `  output ${f.outputFps.toFixed(2)} fps; per input: sent ${f.sentFpsPerInput.toFixed(2)} fps, decoded ${f.decodedFpsPerInput.toFixed(2)} fps; encoder backlog max ${f.maxBacklogFrames.toFixed(1)} frames, at the end ${f.endBacklogFrames.toFixed(1)}`,
    `  latency publisher frame → encoder input (${l.count} frames): median ${l.medianMs.toFixed(0)} ms, p95 ${l.p95Ms.toFixed(0)} ms, max ${l.maxMs.toFixed(0)} ms; medians first/second half ${l.firstHalfMedianMs.toFixed(0)}/${l.secondHalfMedianMs.toFixed(0)} ms`,
  ].join('\n');
}

/** Real time: every output frame on time, the encoder keeping up, every input decoded as fast as it is sent. */
function keptRealTime(f: RecordingFigures): boolean {
  return (
    f.outputFps >= 0.98 * FPS &&
    f.endBacklogFrames <= 3 &&
    f.decodedFpsPerInput >= 0.95 * f.sentFpsPerInput &&
    f.latency.secondHalfMedianMs - f.latency.firstHalfMedianMs < 250
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-mix-'));
  // A publisher process starved of CPU on a loaded machine may send nothing for seconds: not a reason to drop it.
  const h = await startHarness({ mode: 'mix', channel: { idleTimeoutMs: 60_000 } });
  try {
    console.log(`mix benchmark: ${CANVAS.width}×${CANVAS.height}@${FPS} H.264 ${BITRATE_KBPS} kb/s + AAC 48 kb/s mono, best fit, ${SECONDS} s windows; load average ${loadAverage()}`);
    if (PART !== '2') {
      const plan = users(4, PART1_SIZE, 'mixed');
      console.log(`\npart 1: 4 publishers ${PART1_SIZE.width}×${PART1_SIZE.height}@15 (2 VP8, 2 H.264, Opus) — load average ${loadAverage()}`);
      const rec = await recordMix(h, 'bench-mix-4', plan);
      console.log(describe(rec));
      const floor = await floorRun(plan, dir, SECONDS, WARMUP_SECONDS);
      const total = recorderCores(rec);
      console.log(`  floor (one ffmpeg: 4 files decoded, xstack + amix, same encoder settings) ${f3(floor.parts.floor)} cores`);
      console.log(`  ratio recorder / floor ${(total / floor.parts.floor).toFixed(2)} (target ≤ 1.2); load average ${loadAverage()}`);
    }
    if (PART !== '1') {
      console.log(`\npart 2: N publishers 320×180@15 VP8 + Opus → ${CANVAS.width}×${CANVAS.height}@${FPS}, largest N that keeps real time`);
      let best = 0;
      for (const n of NS) {
        console.log(`N = ${n} — load average ${loadAverage()}`);
        // On a loaded machine the publishers' own process may never get its peers in: not measured, try a smaller N.
        const rec = await recordMix(h, `bench-mix-n${n}`, users(n, { width: 320, height: 180 }, 'vp8')).catch((e: Error) => {
          console.log(`  not measured: ${e.message}; load average ${loadAverage()}`);
          return undefined;
        });
        if (!rec) continue;
        const ok = keptRealTime(rec);
        console.log(describe(rec));
        console.log(`  kept real time: ${ok ? 'yes' : 'no'}; load average ${loadAverage()}`);
        if (ok) {
          best = n;
          break;
        }
      }
      console.log(`largest N that kept real time: ${best || 'none'} of ${NS.join(', ')} (tried from the largest down)`);
    }
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
