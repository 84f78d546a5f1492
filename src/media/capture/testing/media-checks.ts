/** What the capture tests check on a segment: its streams (ffprobe), a decoded pixel, and its sound. */
import { runChild } from '../../../process/index.ts';
import { FFMPEG_BIN, FFPROBE_BIN } from '../../ffmpeg.ts';

export interface SegmentProbe {
  readonly codecs: readonly string[];
  readonly width?: number;
  readonly height?: number;
  readonly sampleRate?: number;
  readonly channels?: number;
}

export async function probeSegment(path: string): Promise<SegmentProbe> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'stream=codec_name,width,height,sample_rate,channels', '-of', 'json', path]);
  if (r.code !== 0) throw new Error(`ffprobe failed on ${path}: ${r.stderr}`);
  const streams = ((JSON.parse(r.stdout.toString()) as { streams?: Record<string, string | number>[] }).streams ?? []);
  const v = streams.find((s) => s.width !== undefined);
  const a = streams.find((s) => s.sample_rate !== undefined);
  return {
    codecs: streams.map((s) => String(s.codec_name)),
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

function goertzelPeak(samples: Float32Array, from: number, n: number, loHz: number, hiHz: number, sampleRate: number): number {
  let best = 0;
  let bestPower = -1;
  for (let f = loHz; f <= hiHz; f++) {
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
