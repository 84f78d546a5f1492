/** What the capture tests check on a segment: its streams (ffprobe), a decoded pixel, and its sound. */
import { runChild } from '../../../process/index.ts';
import { FFMPEG_BIN, FFPROBE_BIN } from '../../ffmpeg.ts';

export interface SegmentProbe {
  readonly codecs: readonly string[];
  readonly width?: number;
  readonly height?: number;
  readonly sampleRate?: number;
  readonly channels?: number;
  /** The file's first timestamp (s), on its own timeline (the capture's, kept by -copyts). */
  readonly startSec: number;
}

export async function probeSegment(path: string): Promise<SegmentProbe> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'stream=codec_name,width,height,sample_rate,channels:format=start_time', '-of', 'json', path]);
  if (r.code !== 0) throw new Error(`ffprobe failed on ${path}: ${r.stderr}`);
  const j = JSON.parse(r.stdout.toString()) as { streams?: Record<string, string | number>[]; format?: { start_time?: string } };
  const streams = j.streams ?? [];
  const v = streams.find((s) => s.width !== undefined);
  const a = streams.find((s) => s.sample_rate !== undefined);
  return {
    codecs: streams.map((s) => String(s.codec_name)),
    startSec: Number(j.format?.start_time ?? Number.NaN),
    ...(v ? { width: Number(v.width), height: Number(v.height) } : {}),
    ...(a ? { sampleRate: Number(a.sample_rate), channels: Number(a.channels) } : {}),
  };
}

/** RGB of the pixel at (x, y) of the last frame of the segment (every frame is decoded: no seeking into a GOP). */
export async function pixelAt(path: string, x: number, y: number): Promise<[number, number, number]> {
  const r = await runChild(FFMPEG_BIN, ['-v', 'error', '-i', path, '-map', '0:v', '-vf', `format=rgb24,crop=1:1:${x}:${y}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  const n = r.stdout.length;
  if (r.code !== 0 || n < 3) throw new Error(`no frame decoded from ${path}: ${r.stderr}`);
  return [r.stdout[n - 3]!, r.stdout[n - 2]!, r.stdout[n - 1]!];
}

export function isColour(rgb: readonly number[], want: readonly number[], tolerance = 40): boolean {
  return rgb.every((v, i) => Math.abs(v - want[i]!) <= tolerance);
}

/** The segment's sound as mono 48 kHz samples in [-1, 1]. */
export async function decodeMono(path: string): Promise<Float32Array> {
  const r = await runChild(FFMPEG_BIN, ['-v', 'error', '-i', path, '-map', '0:a', '-ac', '1', '-ar', '48000', '-f', 'f32le', 'pipe:1']);
  if (r.code !== 0) throw new Error(`no audio decoded from ${path}: ${r.stderr}`);
  const b = r.stdout;
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.length - (b.length % 4))));
}

export function rms(samples: Float32Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

/**
 * The strongest frequency between `loHz` and `hiHz`: Goertzel in 1 Hz steps over one-second windows (up to five,
 * spread over the samples), the median of their peaks. A spectrum peak, unlike counting zero crossings, is not
 * thrown off by a click; the median keeps one window with a dropout (a capture starved of CPU skips a few
 * milliseconds, which smears that window's peak by several hertz) from deciding the answer.
 */
export function dominantFrequency(samples: Float32Array, loHz = 100, hiHz = 2000, sampleRate = 48_000): number {
  const n = Math.min(samples.length, sampleRate);
  const windows = Math.max(1, Math.min(5, Math.floor(samples.length / n)));
  const step = windows > 1 ? Math.floor((samples.length - n) / (windows - 1)) : 0;
  const first = windows > 1 ? 0 : Math.max(0, Math.floor((samples.length - n) / 2));
  const peaks: number[] = [];
  for (let w = 0; w < windows; w++) peaks.push(goertzelPeak(samples, first + w * step, n, loHz, hiHz, sampleRate));
  peaks.sort((a, b) => a - b);
  return peaks[Math.floor(peaks.length / 2)]!;
}

/**
 * Coarse to fine: 10 Hz steps over the window's first tenth (a 0.1 s window resolves 10 Hz), then 1 Hz steps over the
 * whole window within 15 Hz of that. The same peak as 1 Hz steps throughout at a fortieth of the work: these checks run
 * in the test's process, beside the reeltime it tests, and the full search held that process's event loop 1.2 s
 * (7.9 s under load, session 26).
 */
function goertzelPeak(samples: Float32Array, from: number, n: number, loHz: number, hiHz: number, sampleRate: number): number {
  const coarse = strongest(samples, from, Math.max(1, Math.floor(n / 10)), loHz, hiHz, 10, sampleRate);
  return strongest(samples, from, n, Math.max(loHz, coarse - 15), Math.min(hiHz, coarse + 15), 1, sampleRate);
}

function strongest(samples: Float32Array, from: number, n: number, loHz: number, hiHz: number, stepHz: number, sampleRate: number): number {
  let best = loHz;
  let bestPower = -1;
  for (let f = loHz; f <= hiHz; f += stepHz) {
    const coeff = 2 * Math.cos((2 * Math.PI * f) / sampleRate);
    let s1 = 0;
    let s2 = 0;
    for (let i = from; i < from + n; i++) {
      const s0 = samples[i]! + coeff * s1 - s2;
      s2 = s1;
      s1 = s0;
    }
    const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
    if (power > bestPower) {
      bestPower = power;
      best = f;
    }
  }
  return best;
}

/** One decoded frame: its timestamp on the file's own timeline (seconds) and the RGB at each sampled point. */
export interface FrameSample {
  readonly ptsSec: number;
  readonly rgb: readonly (readonly [number, number, number])[];
}

/**
 * Every frame of the file's video, decoded in order, with the pixels at `points` (x, y). Timestamps come from
 * ffprobe, pixels from one ffmpeg pass that writes each frame's points side by side (no frame dropped or
 * duplicated: passthrough), so the two lists pair up one to one.
 */
export async function sampleFrames(path: string, points: readonly (readonly [number, number])[]): Promise<FrameSample[]> {
  const ts = await runChild(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', path]);
  if (ts.code !== 0) throw new Error(`ffprobe frames failed on ${path}: ${ts.stderr}`);
  const pts = ts.stdout.toString().split('\n').map((l) => l.trim().replace(/,$/, '')).filter((l) => l !== '').map(Number);
  const n = points.length;
  const crops = points.map(([x, y], i) => `[p${i}]crop=1:1:${x}:${y}[q${i}]`).join(';');
  const graph = n === 1 ? `format=rgb24,crop=1:1:${points[0]![0]}:${points[0]![1]}` : `format=rgb24,split=${n}${points.map((_, i) => `[p${i}]`).join('')};${crops};${points.map((_, i) => `[q${i}]`).join('')}hstack=inputs=${n}`;
  const r = await runChild(FFMPEG_BIN, ['-v', 'error', '-i', path, '-map', '0:v:0', '-filter_complex', graph, '-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1']);
  if (r.code !== 0) throw new Error(`no frames decoded from ${path}: ${r.stderr}`);
  const frames = r.stdout.length / (3 * n);
  if (frames !== pts.length) throw new Error(`${path}: ${frames} frames decoded, ${pts.length} timestamps`);
  const out: FrameSample[] = [];
  for (let f = 0; f < frames; f++) {
    const rgb = points.map((_, i) => {
      const o = (f * n + i) * 3;
      return [r.stdout[o]!, r.stdout[o + 1]!, r.stdout[o + 2]!] as const;
    });
    out.push({ ptsSec: pts[f]!, rgb });
  }
  return out;
}

/** Timestamps (s) of the frames where the point `index` turns from dark to bright (a flash begins). */
export function flashOnsets(frames: readonly FrameSample[], index = 0): number[] {
  const out: number[] = [];
  let dark = false;
  for (const f of frames) {
    const [r, g, b] = f.rgb[index]!;
    const bright = (r + g + b) / 3 >= 128;
    if (bright && dark) out.push(f.ptsSec);
    dark = !bright;
  }
  return out;
}

/**
 * Timestamps (s, the file's own timeline) where a high beep starts: the sound's second difference (a high-pass
 * that passes 4 kHz about 80 times more than a 440 Hz tone) rises above `threshold` after at least `quietSec` below.
 */
export async function beepOnsets(path: string, threshold = 0.04, quietSec = 0.5): Promise<number[]> {
  const probe = await runChild(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=start_time', '-of', 'csv=p=0', path]);
  // MPEG-TS lists the stream under its program too: the first line is enough.
  const audioStart = Number(probe.stdout.toString().trim().split('\n')[0]);
  if (probe.code !== 0 || !Number.isFinite(audioStart)) throw new Error(`no audio start time in ${path}: ${probe.stderr}`);
  const pcm = await decodeMono(path);
  const out: number[] = [];
  let quiet = 0;
  for (let i = 2; i < pcm.length; i++) {
    const hp = pcm[i]! - 2 * pcm[i - 1]! + pcm[i - 2]!;
    if (Math.abs(hp) > threshold) {
      if (quiet >= quietSec * 48_000) out.push(audioStart + i / 48_000);
      quiet = 0;
    } else quiet++;
  }
  return out;
}

/**
 * Sound minus picture (ms) for each beep paired with the nearest flash; pairs further apart than `maxMs` (a beep
 * whose flash fell into another file) are left out.
 */
export function avOffsetsMs(beepsSec: readonly number[], flashesSec: readonly number[], maxMs = 250): number[] {
  const out: number[] = [];
  for (const b of beepsSec) {
    let best = Number.POSITIVE_INFINITY;
    for (const f of flashesSec) if (Math.abs(b - f) < Math.abs(best)) best = b - f;
    if (Math.abs(best) * 1000 < maxMs) out.push(best * 1000);
  }
  return out;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)]!;
}

/** The audio packets' timestamps in the stream's time base ticks (MPEG-TS: 90 kHz), in file order. */
export async function audioPacketTicks(path: string): Promise<{ readonly ticks: number[]; readonly ticksPerSecond: number }> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=time_base:packet=pts', '-of', 'json', path]);
  if (r.code !== 0) throw new Error(`ffprobe packets failed on ${path}: ${r.stderr}`);
  const j = JSON.parse(r.stdout.toString()) as { packets?: { pts?: number }[]; streams?: { time_base?: string }[] };
  const [num, den] = (j.streams?.[0]?.time_base ?? '').split('/').map(Number);
  if (!num || !den) throw new Error(`no audio time base in ${path}`);
  return { ticks: (j.packets ?? []).map((p) => Number(p.pts)), ticksPerSecond: den / num };
}

/**
 * Where an AAC stream's timestamps are not continuous: the packets (index, step in ms) whose timestamp is not
 * exactly one frame (1024 samples) after the one before. Empty when every packet follows the last.
 */
export async function audioTimestampGaps(path: string, sampleRate = 48_000): Promise<{ index: number; stepMs: number }[]> {
  const { ticks, ticksPerSecond } = await audioPacketTicks(path);
  const frame = (1024 * ticksPerSecond) / sampleRate;
  const out: { index: number; stepMs: number }[] = [];
  for (let i = 1; i < ticks.length; i++) {
    const step = ticks[i]! - ticks[i - 1]!;
    if (Math.abs(step - frame) > 0.5) out.push({ index: i, stepMs: (step * 1000) / ticksPerSecond });
  }
  return out;
}
