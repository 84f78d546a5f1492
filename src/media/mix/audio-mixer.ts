/**
 * Pure PCM mixing at 48 kHz: interleaved s16 or f32 frames from several users summed into mono or stereo, with a
 * soft limiter against clipping (docs/recording-mix.md, "Audio").
 */

export type PcmSamples = Int16Array | Float32Array;
export type PcmFormat = 's16' | 'f32';

/** A run of interleaved samples from one user (48 kHz). */
export interface PcmFrame {
  readonly samples: PcmSamples;
  readonly channels: 1 | 2;
}

export function pcmFrameCount(frame: PcmFrame): number {
  return Math.floor(frame.samples.length / frame.channels);
}

/** Below this magnitude the limiter is exactly transparent; above it, it bends smoothly towards full scale. */
export const LIMITER_KNEE = 0.8;
const HEADROOM = 1 - LIMITER_KNEE;

/**
 * Memoryless soft limiter: identity up to the knee (−1.9 dBFS), then knee + headroom·tanh(excess / headroom), which
 * is continuous in value and slope and never goes beyond ±1. Memoryless so that chunk boundaries, late joiners and
 * pull sizes cannot change the result; normal speech levels pass bit for bit.
 */
export function softLimit(x: number): number {
  const magnitude = x < 0 ? -x : x;
  if (magnitude <= LIMITER_KNEE) return x;
  const bent = LIMITER_KNEE + HEADROOM * Math.tanh((magnitude - LIMITER_KNEE) / HEADROOM);
  return x < 0 ? -bent : bent;
}

const toUnit = (samples: PcmSamples, i: number): number => (samples instanceof Int16Array ? samples[i]! / 32768 : samples[i]!);

/**
 * Adds `frames` frames of `frame` (from its frame `from`) into an interleaved float accumulator at frame `at`.
 * Mono into stereo goes to both sides; stereo into mono is averaged.
 */
export function addPcmInto(accumulator: Float32Array, channels: 1 | 2, at: number, frame: PcmFrame, from = 0, frames = pcmFrameCount(frame) - from): void {
  const src = frame.samples;
  if (frame.channels === channels) {
    const base = at * channels;
    const first = from * channels;
    const count = frames * channels;
    for (let i = 0; i < count; i++) accumulator[base + i]! += toUnit(src, first + i);
  } else if (channels === 2) {
    for (let i = 0; i < frames; i++) {
      const v = toUnit(src, from + i);
      accumulator[(at + i) * 2]! += v;
      accumulator[(at + i) * 2 + 1]! += v;
    }
  } else {
    for (let i = 0; i < frames; i++) accumulator[at + i]! += (toUnit(src, (from + i) * 2) + toUnit(src, (from + i) * 2 + 1)) / 2;
  }
}

/** Limits an accumulator into output samples (s16 rounds to the nearest step). */
export function limitInto(accumulator: Float32Array, out: PcmSamples, start = 0, count = accumulator.length - start, outStart = 0): void {
  if (out instanceof Int16Array) {
    for (let i = 0; i < count; i++) out[outStart + i] = Math.round(softLimit(accumulator[start + i]!) * 32767);
  } else {
    for (let i = 0; i < count; i++) out[outStart + i] = softLimit(accumulator[start + i]!);
  }
}

export function allocatePcm(format: PcmFormat, length: number): PcmSamples {
  return format === 's16' ? new Int16Array(length) : new Float32Array(length);
}

/**
 * Mixes users' frames that start together into one output of `channels`; the output is as long as the longest
 * input, a shorter (or missing) user is silence for the rest.
 */
export function mixPcmFrames(frames: readonly PcmFrame[], channels: 1 | 2, format: PcmFormat): PcmSamples {
  const length = frames.reduce((n, f) => Math.max(n, pcmFrameCount(f)), 0);
  const accumulator = new Float32Array(length * channels);
  for (const frame of frames) addPcmInto(accumulator, channels, 0, frame);
  const out = allocatePcm(format, accumulator.length);
  limitInto(accumulator, out);
  return out;
}
