/** Frame checks of the mix tests: the recorded output decoded a few times a second, small. */
import { FFMPEG_BIN } from '../../../media/index.ts';
import { runChild } from '../../../process/index.ts';

/** Samples per second of output that the frame checks read. */
export const SAMPLE_FPS = 4;

/**
 * The output decoded at SAMPLE_FPS frames a second, scaled down to 64 pixels on its long side: `px(n, fx, fy)` is the
 * RGB at fractions of the canvas in sample n (output time n / SAMPLE_FPS).
 */
export async function sampled(file: string, portrait = false): Promise<{ count: number; px: (n: number, fx: number, fy: number) => number[] }> {
  const [w, h] = portrait ? [36, 64] : [64, 36];
  const r = await runChild(FFMPEG_BIN, ['-v', 'error', '-i', file, '-vf', `fps=${SAMPLE_FPS},scale=${w}:${h}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    timeoutMs: 60_000,
  });
  const size = w * h * 3;
  return {
    count: Math.floor(r.stdout.length / size),
    px: (n, fx, fy) => {
      const i = n * size + (Math.floor(fy * h) * w + Math.floor(fx * w)) * 3;
      return [r.stdout[i]!, r.stdout[i + 1]!, r.stdout[i + 2]!];
    },
  };
}

/** Sample indices [from s, to s). */
export const sampleRange = (fromSec: number, toSec: number): number[] =>
  Array.from({ length: Math.max(0, Math.floor(toSec * SAMPLE_FPS) - Math.ceil(fromSec * SAMPLE_FPS)) }, (_, i) => Math.ceil(fromSec * SAMPLE_FPS) + i);
