/**
 * When a slice closes (notes §4.3): audio every 15 s; video at the first keyframe once the slice is at least
 * 15 s long. The live pipeline hands this policy to ffmpeg's segment muxer (which cuts video only on keyframes);
 * `shouldCut` states the same rule as a pure function for tests and for any in-process slicer.
 */
import type { TrackKind } from './naming.ts';

export const SLICE_SECONDS = 15;

export interface SlicePolicy {
  readonly track: TrackKind;
  readonly sliceSeconds: number;
}

export function slicePolicy(track: TrackKind, sliceSeconds = SLICE_SECONDS): SlicePolicy {
  if (!(sliceSeconds > 0)) throw new RangeError(`slice length must be positive, got ${sliceSeconds}`);
  return Object.freeze({ track, sliceSeconds });
}

/** Does a frame at `frameMs` start a new slice, given the current slice began at `sliceStartMs`? */
export function shouldCut(policy: SlicePolicy, sliceStartMs: number, frameMs: number, keyframe: boolean): boolean {
  const due = frameMs - sliceStartMs >= policy.sliceSeconds * 1000;
  return policy.track === 'audio' ? due : due && keyframe;
}

/** Slices a stream of `durationSec` yields when video keyframes come every `gopSec` (audio: gopSec ignored). */
export function expectedSliceCount(policy: SlicePolicy, durationSec: number, gopSec = 0): number {
  if (durationSec <= 0) return 0;
  const step = policy.track === 'audio' || gopSec <= 0 ? policy.sliceSeconds : Math.ceil(policy.sliceSeconds / gopSec) * gopSec;
  return Math.ceil(durationSec / step - 1e-9);
}

/** ffmpeg segment-muxer arguments that implement the policy. */
export function segmentArgs(policy: SlicePolicy): string[] {
  return ['-f', 'segment', '-segment_time', String(policy.sliceSeconds), '-reset_timestamps', '0'];
}
