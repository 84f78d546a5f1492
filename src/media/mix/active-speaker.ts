import type { PcmSamples } from './audio-mixer.ts';

/** Quieter than any real input; stands for digital silence in dB arithmetic. */
export const SILENCE_DBFS = -127;

/** RMS level of a run of samples in dBFS (a full-scale sine is about −3 dBFS). */
export function rmsDbfs(samples: PcmSamples): number {
  if (samples.length === 0) return SILENCE_DBFS;
  const scale = samples instanceof Int16Array ? 1 / 32768 : 1;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i]! * scale;
    sum += v * v;
  }
  return Math.max(SILENCE_DBFS, 10 * Math.log10(sum / samples.length));
}

/** RFC 6464 audio level (0 loudest … 127 silent, in −dBov) as dBFS. */
export function rtpAudioLevelToDbfs(level: number): number {
  return -Math.min(127, Math.max(0, level));
}

export interface ActiveSpeakerOptions {
  /** Levels are averaged (as power) over this much recent time. */
  readonly windowMs?: number;
  /** The main speaker changes at most this often. */
  readonly minSwitchIntervalMs?: number;
  /** A challenger must be this much louder than the current speaker to take over. */
  readonly hysteresisDb?: number;
  /** Nobody quieter than this counts as speaking. */
  readonly speechThresholdDbfs?: number;
}

export const ACTIVE_SPEAKER_DEFAULTS: Required<ActiveSpeakerOptions> = Object.freeze({
  windowMs: 600,
  minSwitchIntervalMs: 1500,
  hysteresisDb: 6,
  speechThresholdDbfs: -50,
});

interface LevelSample {
  readonly atMs: number;
  readonly power: number;
}

/**
 * Chooses the main speaker for the active-speaker layout from per-user levels (decoded-audio energy or RTP
 * audio-level values), driven by the caller's clock: `observe` levels as they come, `update(now)` on each
 * composed frame. The speaker changes only to someone clearly louder (hysteresis), and never twice within
 * `minSwitchIntervalMs`, so the main region does not flicker between two people talking at once.
 */
export class ActiveSpeakerSelector {
  readonly options: Required<ActiveSpeakerOptions>;
  readonly #levels = new Map<string, LevelSample[]>();
  #speaker: string | null = null;
  #switchedAtMs = -Infinity;

  constructor(options: ActiveSpeakerOptions = {}) {
    this.options = Object.freeze({ ...ACTIVE_SPEAKER_DEFAULTS, ...options });
  }

  get speaker(): string | null {
    return this.#speaker;
  }

  observe(uid: string, atMs: number, levelDbfs: number): void {
    let samples = this.#levels.get(uid);
    if (!samples) this.#levels.set(uid, (samples = []));
    samples.push({ atMs, power: 10 ** (Math.max(SILENCE_DBFS, levelDbfs) / 10) });
  }

  /** A user who left can no longer be the speaker; if they were, the next update picks someone at once. */
  remove(uid: string): void {
    this.#levels.delete(uid);
    if (this.#speaker === uid) this.#speaker = null;
  }

  /** Level of a user over the window ending at `nowMs`, in dBFS. */
  levelAt(uid: string, nowMs: number): number {
    const samples = this.#levels.get(uid);
    if (!samples) return SILENCE_DBFS;
    const since = nowMs - this.options.windowMs;
    while (samples.length > 0 && samples[0]!.atMs <= since) samples.shift();
    let sum = 0;
    let count = 0;
    for (const s of samples) {
      if (s.atMs > nowMs) break;
      sum += s.power;
      count++;
    }
    return count === 0 ? SILENCE_DBFS : Math.max(SILENCE_DBFS, 10 * Math.log10(sum / count));
  }

  /** Re-evaluates at `nowMs` and returns the speaker (null until someone has spoken). */
  update(nowMs: number): string | null {
    const { speechThresholdDbfs, hysteresisDb, minSwitchIntervalMs } = this.options;
    let loudest: string | null = null;
    let loudestDb = -Infinity;
    for (const uid of this.#levels.keys()) {
      const db = this.levelAt(uid, nowMs);
      if (db > loudestDb) {
        loudest = uid;
        loudestDb = db;
      }
    }
    if (loudest === null || loudestDb < speechThresholdDbfs || loudest === this.#speaker) return this.#speaker;
    if (this.#speaker === null) {
      this.#speaker = loudest;
      this.#switchedAtMs = nowMs;
      return loudest;
    }
    const currentDb = this.levelAt(this.#speaker, nowMs);
    const clearlyLouder = loudestDb >= currentDb + hysteresisDb || currentDb < speechThresholdDbfs;
    if (clearlyLouder && nowMs - this.#switchedAtMs >= minSwitchIntervalMs) {
      this.#speaker = loudest;
      this.#switchedAtMs = nowMs;
    }
    return this.#speaker;
  }
}
