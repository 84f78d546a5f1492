import { MIX_SAMPLE_RATE } from './audio-profile.ts';
import { addPcmInto, allocatePcm, limitInto, type PcmFormat, type PcmFrame, pcmFrameCount, type PcmSamples } from './audio-mixer.ts';

export interface AudioTimelineOptions {
  /** Wall-clock time (ms) of output frame 0, e.g. when the recording started. */
  readonly originMs: number;
  readonly channels: 1 | 2;
  /** How far ahead of the output cursor audio may be buffered; chunks further ahead are cut (default 2 s). */
  readonly capacityMs?: number;
  /**
   * A chunk stamped within this of where the same user's previous chunk ended is joined to it exactly, so sender
   * clock jitter makes neither clicks (gaps) nor doubled samples (overlaps). Default 10 ms.
   */
  readonly snapToleranceMs?: number;
}

export type AudioPlacement =
  | { readonly kind: 'placed'; readonly atFrame: number; readonly frames: number; readonly trimmedFrames: number }
  | { readonly kind: 'dropped'; readonly reason: 'late' | 'duplicate' | 'too-early'; readonly frames: number };

interface UserCursor {
  /** Output frame right after this user's last placed sample. */
  end: number;
}

const framesOf = (ms: number): number => Math.round((ms * MIX_SAMPLE_RATE) / 1000);

/**
 * Places users' PCM chunks, each stamped with its sender's wall-clock time (RTP timestamps mapped through RTCP
 * sender reports by the caller), on one output timeline and mixes them. Whoever pulls owns the clock: `pull` hands
 * out the next output frames and moves the cursor; audio that arrives for frames already pulled is late and
 * dropped. Nobody speaking (or a gap in one user's stream) is silence; a late joiner's first chunk lands at its own
 * time, not at the start. No timers, no I/O.
 */
export class AudioTimeline {
  readonly originMs: number;
  readonly channels: 1 | 2;
  readonly capacityFrames: number;
  readonly snapToleranceFrames: number;
  readonly #ring: Float32Array;
  readonly #users = new Map<string, UserCursor>();
  #cursor = 0;

  constructor(options: AudioTimelineOptions) {
    this.originMs = options.originMs;
    this.channels = options.channels;
    this.capacityFrames = framesOf(options.capacityMs ?? 2000);
    this.snapToleranceFrames = framesOf(options.snapToleranceMs ?? 10);
    if (this.capacityFrames <= 0) throw new RangeError(`capacityMs must be positive, got ${options.capacityMs}`);
    this.#ring = new Float32Array(this.capacityFrames * this.channels);
  }

  /** Output frames handed out so far (the next pull starts here). */
  get cursorFrame(): number {
    return this.#cursor;
  }

  /** Wall-clock time of the next frame to be pulled. */
  get cursorMs(): number {
    return this.originMs + (this.#cursor * 1000) / MIX_SAMPLE_RATE;
  }

  /** How many frames are due when the output may trail wall-clock `nowMs` by `latencyMs` (the jitter window). */
  framesDue(nowMs: number, latencyMs: number): number {
    return Math.max(0, framesOf(nowMs - latencyMs - this.originMs) - this.#cursor);
  }

  push(uid: string, senderTimeMs: number, frame: PcmFrame): AudioPlacement {
    const frames = pcmFrameCount(frame);
    let start = framesOf(senderTimeMs - this.originMs);
    const user = this.#users.get(uid);
    if (user && Math.abs(start - user.end) <= this.snapToleranceFrames) start = user.end;
    const end = start + frames;
    if (end <= this.#cursor) return { kind: 'dropped', reason: 'late', frames };
    if (user && end <= user.end) return { kind: 'dropped', reason: 'duplicate', frames };
    const limit = this.#cursor + this.capacityFrames;
    if (start >= limit) return { kind: 'dropped', reason: 'too-early', frames };
    // Cut what was already pulled, what this user already placed, and what does not fit ahead.
    const from = Math.max(start, this.#cursor, user?.end ?? -Infinity);
    const to = Math.min(end, limit);
    this.#add(frame, from - start, from, to - from);
    if (user) user.end = to;
    else this.#users.set(uid, { end: to });
    return { kind: 'placed', atFrame: from, frames: to - from, trimmedFrames: frames - (to - from) };
  }

  /** A user who left: their next chunk (after a rejoin) is placed by its stamp alone. */
  forget(uid: string): void {
    this.#users.delete(uid);
  }

  /** The next `frames` output frames, mixed and limited; the cursor moves on and those frames are cleared. */
  pull(frames: number, format: PcmFormat): PcmSamples {
    if (!Number.isInteger(frames) || frames < 0 || frames > this.capacityFrames) {
      throw new RangeError(`frames must be a whole number from 0 to ${this.capacityFrames}, got ${frames}`);
    }
    const out = allocatePcm(format, frames * this.channels);
    const ringFrames = this.capacityFrames;
    const head = this.#cursor % ringFrames;
    const first = Math.min(frames, ringFrames - head);
    limitInto(this.#ring, out, head * this.channels, first * this.channels, 0);
    this.#ring.fill(0, head * this.channels, (head + first) * this.channels);
    if (first < frames) {
      limitInto(this.#ring, out, 0, (frames - first) * this.channels, first * this.channels);
      this.#ring.fill(0, 0, (frames - first) * this.channels);
    }
    this.#cursor += frames;
    return out;
  }

  /** Adds `count` frames of `frame` from its frame `from` at output frame `at`, wrapping around the ring. */
  #add(frame: PcmFrame, from: number, at: number, count: number): void {
    const ringFrames = this.capacityFrames;
    const position = at % ringFrames;
    const first = Math.min(count, ringFrames - position);
    addPcmInto(this.#ring, this.channels, position, frame, from, first);
    if (first < count) addPcmInto(this.#ring, this.channels, 0, frame, from + first, count - first);
  }
}
