/**
 * When a slice closes (docs/recording-individual.md, "How it works"): audio every 15 s; video at a keyframe once
 * 15 s have passed. Marks are counted on the stream's own clock (15 s, 30 s, 45 s ... after its first frame), as
 * ffmpeg's segment muxer does: a video cut waits for the first keyframe at or after each mark, so a slice that ran
 * long (late keyframe) is followed by a shorter one and slices never drift from the marks. The live pipeline hands this policy to
 * ffmpeg; `shouldCut` states the same rule as a pure function for tests and any in-process slicer.
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

/**
 * Does a frame at `frameSec` (stream time) start slice number `closed + 1`, given `closed` slices were cut so far?
 */
export function shouldCut(policy: SlicePolicy, closed: number, frameSec: number, keyframe: boolean): boolean {
  const due = frameSec >= (closed + 1) * policy.sliceSeconds;
  return policy.track === 'audio' ? due : due && keyframe;
}

/** Remainders up to this long do not make a slice of their own (cuts fall on the first frame past the mark). */
export const SLICE_SLACK_SECONDS = 0.1;

/**
 * Slices a stream of `durationSec` yields. Audio frames are treated as continuous; video keyframes come every
 * `gopSec` starting at `phaseSec` (all frames are keyframes when gopSec is 0).
 */
export function expectedSliceCount(policy: SlicePolicy, durationSec: number, gopSec = 0, phaseSec = 0): number {
  if (durationSec <= 0) return 0;
  const last = durationSec - SLICE_SLACK_SECONDS;
  let closed = 0;
  for (;;) {
    const mark = (closed + 1) * policy.sliceSeconds;
    let cut = mark;
    if (policy.track === 'video' && gopSec > 0) cut = phaseSec + Math.ceil((mark - phaseSec) / gopSec - 1e-9) * gopSec;
    if (cut >= last) return closed + 1;
    closed++;
  }
}

/**
 * ffmpeg segment-muxer arguments that implement the policy. MPEG-TS slices keep the stream's running timestamps
 * (HLS players expect them continuous); each WebM slice starts at zero, because a Matroska file's duration is its
 * last timestamp and a continued clock would make later slices look longer than they are.
 */
export function segmentArgs(policy: SlicePolicy, container: 'ts' | 'webm' = 'ts'): string[] {
  return ['-f', 'segment', '-segment_time', String(policy.sliceSeconds), '-reset_timestamps', container === 'webm' ? '1' : '0'];
}
