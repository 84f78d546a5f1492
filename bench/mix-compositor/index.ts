/**
 * Mix compositor benchmark: composes best-fit canvases of 4 and 17 tiles at 640×360@15 from 320×180 and 640×360
 * sources, nearest and bilinear, for a fixed number of frames, and prints CPU per frame and the fraction of one
 * core at 15 fps. Baselines measured in the same run:
 *   - plane copy: copying a prepared 640×360 canvas into the output frame, the least any compositor does per frame
 *     (every output byte written once); the compositor's ratio to it says what layout drawing adds;
 *   - ffmpeg: split + scale (same kernel) + xstack over the same raw frames read from a file, single-threaded,
 *     minus a run that only reads that input (so the figure is ffmpeg's compositing alone), median of 3 such pairs;
 *     `--no-ffmpeg` skips it.
 *
 * Each compositor row is the median of ROUNDS rounds of FRAMES frames, with the plane copy measured in every round
 * too, so a busy moment on a shared machine skews a round, not the row.
 *
 *   node --import tsx bench/mix-compositor/index.ts [--frames 150] [--rounds 5] [--no-ffmpeg]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hexToYuv } from '../../src/media/mix/colour.ts';
import { type Composition, MixCompositor } from '../../src/media/mix/compositor.ts';
import { createI420Frame, type I420Frame } from '../../src/media/mix/i420.ts';
import { layout } from '../../src/media/mix/layout.ts';
import { MIX_LAYOUT } from '../../src/media/mix/layout-settings.ts';
import type { ScalingMethod } from '../../src/media/mix/scaling-plan.ts';

const { values } = parseArgs({
  options: { frames: { type: 'string', default: '150' }, rounds: { type: 'string', default: '5' }, 'no-ffmpeg': { type: 'boolean', default: false } },
});
const FRAMES = Number(values.frames);
const ROUNDS = Number(values.rounds);
/** ffmpeg pairs (composite, read-only) per row; each run composes FRAMES × ROUNDS frames so start-up cost is small. */
const FFMPEG_ROUNDS = 3;
const FPS = 15;
const CANVAS = { width: 640, height: 360 };
const SOURCES = [
  { width: 320, height: 180 },
  { width: 640, height: 360 },
];
const TILES = [4, 17];
const METHODS: readonly ScalingMethod[] = ['nearest', 'bilinear'];

/** A textured source per user so no two tiles read the same bytes. */
function sourceFrame(width: number, height: number, seed: number): I420Frame {
  const f = createI420Frame(width, height);
  for (let i = 0; i < f.data.length; i++) f.data[i] = (i * 7 + seed * 31 + (i >> 9)) & 0xff;
  return f;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU ms per frame of `body` over FRAMES frames. */
function measure(body: () => void): number {
  const start = cpuMs();
  for (let i = 0; i < FRAMES; i++) body();
  return (cpuMs() - start) / FRAMES;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median CPU ms per frame of `body` and of the plane copy, measured alternately over ROUNDS rounds. */
function measureAgainstCopy(body: () => void): { ms: number; copyMs: number } {
  for (let i = 0; i < 20; i++) body();
  const ms: number[] = [];
  const copies: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    copies.push(measure(copyPlanes));
    ms.push(measure(body));
  }
  return { ms: median(ms), copyMs: median(copies) };
}

function compositionFor(tiles: number, source: { width: number; height: number }): Composition {
  const users = Array.from({ length: tiles }, (_, i) => String(i + 1));
  const regions = layout(MIX_LAYOUT.bestFit, CANVAS, users);
  return {
    background: { colour: hexToYuv('#000000'), image: null },
    layers: regions.flatMap((r, i) => (r.uid ? [{ rect: r.rect, alpha: 1, content: { kind: 'picture' as const, frame: sourceFrame(source.width, source.height, i), renderMode: 'crop' as const } }] : [])),
  };
}

/** CPU ms per frame of one single-threaded ffmpeg run (children's user+sys as bash's `times` reports them). */
function ffmpegRunMsPerFrame(inputs: readonly string[], filter: string): number | null {
  const args = ['-v', 'error', '-nostdin', '-threads', '1', '-filter_threads', '1', ...inputs, '-filter_complex', filter, '-map', '[out]', '-frames:v', String(FRAMES * ROUNDS), '-f', 'null', '-'];
  const quoted = ['ffmpeg', ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const run = spawnSync('bash', ['-c', `${quoted} && times`], { encoding: 'utf8' });
  if (run.status !== 0) {
    console.error(`ffmpeg reference failed: ${run.stderr.trim().split('\n').at(-1)}`);
    return null;
  }
  const children = run.stdout.trim().split('\n').at(-1)!.match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
  if (!children) return null;
  const seconds = Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]);
  return (seconds * 1000) / (FRAMES * ROUNDS);
}

/** ffmpeg's scale + xstack of the same tiles from raw files, net of reading those files: CPU ms per frame. */
function ffmpegMsPerFrame(tiles: number, source: { width: number; height: number }, method: ScalingMethod): number | null {
  const dir = mkdtempSync(join(tmpdir(), 'mix-bench-'));
  try {
    const regions = layout(MIX_LAYOUT.bestFit, CANVAS, Array.from({ length: tiles }, (_, i) => String(i + 1))).filter((r) => r.uid);
    const file = join(dir, 'source.yuv');
    const frames = 30;
    const one = sourceFrame(source.width, source.height, 1).data;
    const raw = new Uint8Array(one.length * frames);
    for (let k = 0; k < frames; k++) raw.set(one, k * one.length);
    writeFileSync(file, raw);
    const flags = method === 'nearest' ? 'neighbor' : 'bilinear';
    // One raw input split N ways: split shares frames by reference, so reading costs one input, not N.
    const input = ['-stream_loop', '-1', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${source.width}x${source.height}`, '-r', String(FPS), '-i', file];
    const split = `[0:v]split=${regions.length}${regions.map((_, i) => `[in${i}]`).join('')}`;
    const scales = regions.map((r, i) => `[in${i}]scale=${r.rect.width}:${r.rect.height}:flags=${flags}[s${i}]`).join(';');
    const stack = `${regions.map((_, i) => `[s${i}]`).join('')}xstack=inputs=${regions.length}:layout=${regions.map((r) => `${r.rect.x}_${r.rect.y}`).join('|')}:fill=black,scale=${CANVAS.width}:${CANVAS.height}[out]`;
    const readOnly = '[0:v]null[out]';
    const net: number[] = [];
    for (let r = 0; r < FFMPEG_ROUNDS; r++) {
      const total = ffmpegRunMsPerFrame(input, `${split};${scales};${stack}`);
      const reading = ffmpegRunMsPerFrame(input, readOnly);
      if (total === null || reading === null) return null;
      net.push(Math.max(0, total - reading));
    }
    return median(net);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const target = createI420Frame(CANVAS.width, CANVAS.height);
const prepared = createI420Frame(CANVAS.width, CANVAS.height);
function copyPlanes(): void {
  target.data.set(prepared.data);
}
const fmt = (ms: number) => ms.toFixed(3).padStart(7);
const core = (ms: number) => ((ms * FPS) / 1000).toFixed(4).padStart(7);

console.log(
  `mix compositor, ${CANVAS.width}×${CANVAS.height}@${FPS}, best fit, median of ${ROUNDS} × ${FRAMES} frames (CPU per frame; core = fraction of one core at ${FPS} fps)`,
);
console.log('tiles  source    method    ms/frame     core  copy ms  ×copy  | ffmpeg ms/frame   core  ours/ffmpeg');
for (const tiles of TILES) {
  for (const source of SOURCES) {
    const composition = compositionFor(tiles, source);
    for (const method of METHODS) {
      const compositor = new MixCompositor(CANVAS, method);
      const { ms, copyMs } = measureAgainstCopy(() => compositor.compose(target, composition));
      const ff = values['no-ffmpeg'] ? null : ffmpegMsPerFrame(tiles, source, method);
      const ffText = ff === null ? '        –        –            –' : `${fmt(ff)}        ${core(ff)}  ${(ff > 0 ? (ms / ff).toFixed(2) : 'n/a (ffmpeg passes 1:1 through)').padStart(11)}`;
      console.log(
        `${String(tiles).padStart(5)}  ${`${source.width}x${source.height}`.padEnd(8)}  ${method.padEnd(8)}  ${fmt(ms)}  ${core(ms)}  ${fmt(copyMs)}  ${(ms / copyMs).toFixed(0).padStart(5)}  | ${ffText}`,
      );
    }
  }
}
