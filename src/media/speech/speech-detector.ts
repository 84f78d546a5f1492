/**
 * Who spoke when, from audio levels (docs/tasks/speaker-timeline.md, "The rule"). Pure: each user's levels come in
 * as short frames dated on the sender's clock; intervals of speech come out. One state per user and one transition
 * function (`nextVoiceState`), driven by the frames and by the caller's clock (`advance`), never by a timer.
 */
import { ACTIVE_SPEAKER_DEFAULTS, SILENCE_DBFS } from '../mix/active-speaker.ts';

export interface SpeechRules {
  /** A frame at least this loud is voiced (the active-speaker layout's threshold: one notion of "speaking"). */
  readonly thresholdDbfs: number;
  /** Speech begins once this much voiced audio came with no pause longer than `onsetGapMs`: a click is not speech. */
  readonly onsetMs: number;
  readonly onsetGapMs: number;
  /** A pause shorter than this stays inside the interval (a breath, a pause between phrases). */
  readonly hangoverMs: number;
  /** Intervals shorter than this, first voiced frame to last, are dropped (a cough, a knock). */
  readonly minSpeechMs: number;
}

/**
 * Conversational speech pauses 200-500 ms between phrases for breath and up to about a second between sentences;
 * 800 ms keeps a speaker's sentence and its breaths in one interval and still ends it when another takes the turn.
 * 60 ms of voice (three Opus frames) within 120 ms starts one.
 */
export const SPEECH_RULES: SpeechRules = Object.freeze({
  thresholdDbfs: ACTIVE_SPEAKER_DEFAULTS.speechThresholdDbfs,
  onsetMs: 60,
  onsetGapMs: 120,
  hangoverMs: 800,
  minSpeechMs: 250,
});

/** One short run of a user's audio: `[atMs, atMs + durationMs)` on the sender's clock (Unix ms). */
export interface LevelFrame {
  readonly atMs: number;
  readonly durationMs: number;
  readonly levelDbfs: number;
}

export interface SpeechInterval {
  readonly uid: string;
  /** First voiced frame's start and last voiced frame's end, Unix ms. */
  readonly startMs: number;
  readonly endMs: number;
  /** Mean power of the voiced frames, dBFS, one decimal. */
  readonly levelDbfs: number;
}

/** A run of voiced frames: where it began, where its last voiced frame ended, its power. */
interface Voice {
  readonly startMs: number;
  readonly voicedEndMs: number;
  readonly voicedMs: number;
  readonly powerSum: number;
  readonly frames: number;
}

export type VoiceState =
  | { readonly kind: 'silent' }
  /** Voiced frames came, not yet `onsetMs` of them. */
  | ({ readonly kind: 'onset' } & Voice)
  | ({ readonly kind: 'speaking' } & Voice);

export const SILENT: VoiceState = Object.freeze({ kind: 'silent' });

export type VoiceInput = { readonly kind: 'frame'; readonly frame: LevelFrame } | { readonly kind: 'time'; readonly nowMs: number };

export interface VoiceStep {
  readonly state: VoiceState;
  /** An interval that ended with this input (before the frame, when the frame came after the hangover). */
  readonly ended?: Omit<SpeechInterval, 'uid'>;
}

const power = (dbfs: number): number => 10 ** (Math.max(SILENCE_DBFS, dbfs) / 10);

function interval(v: Voice): Omit<SpeechInterval, 'uid'> {
  const level = Math.max(SILENCE_DBFS, 10 * Math.log10(v.powerSum / v.frames));
  return { startMs: v.startMs, endMs: v.voicedEndMs, levelDbfs: Math.round(level * 10) / 10 };
}

/** The state after one input. Frames of one user come in time order; an older one than the last is ignored. */
export function nextVoiceState(state: VoiceState, input: VoiceInput, rules: SpeechRules = SPEECH_RULES): VoiceStep {
  const at = input.kind === 'frame' ? input.frame.atMs : input.nowMs;
  // The pause so far closes a run that has gone quiet for long enough (also with no frames at all: a sender that
  // stopped sending, DTX, a user who left).
  if (state.kind === 'onset' && at - state.voicedEndMs > rules.onsetGapMs) return nextVoiceState(SILENT, input, rules);
  if (state.kind === 'speaking' && at - state.voicedEndMs >= rules.hangoverMs) {
    const closed = state.voicedEndMs - state.startMs >= rules.minSpeechMs ? interval(state) : undefined;
    const after = nextVoiceState(SILENT, input, rules);
    return closed ? { state: after.state, ended: closed } : after;
  }
  if (input.kind === 'time') return { state };
  const f = input.frame;
  if (f.levelDbfs < rules.thresholdDbfs) return { state };
  const end = f.atMs + f.durationMs;
  if (state.kind === 'silent') {
    const v: Voice = { startMs: f.atMs, voicedEndMs: end, voicedMs: f.durationMs, powerSum: power(f.levelDbfs), frames: 1 };
    return { state: { kind: v.voicedMs >= rules.onsetMs ? 'speaking' : 'onset', ...v } };
  }
  if (end <= state.voicedEndMs) return { state };
  const v: Voice = {
    startMs: state.startMs,
    voicedEndMs: end,
    voicedMs: state.voicedMs + f.durationMs,
    powerSum: state.powerSum + power(f.levelDbfs),
    frames: state.frames + 1,
  };
  return { state: { kind: state.kind === 'speaking' || v.voicedMs >= rules.onsetMs ? 'speaking' : 'onset', ...v } };
}

/** Every user's voice state and the intervals found so far. */
export class SpeechDetector {
  readonly #states = new Map<string, VoiceState>();
  readonly #ended: SpeechInterval[] = [];
  /** How many of #ended takeEnded() has handed out. */
  #taken = 0;
  #changed = false;

  constructor(readonly rules: SpeechRules = SPEECH_RULES) {}

  frame(uid: string, frame: LevelFrame): void {
    this.#step(uid, { kind: 'frame', frame });
  }

  /** The caller's clock moved on: closes the intervals whose pause has outlasted the hangover. */
  advance(nowMs: number): void {
    for (const uid of [...this.#states.keys()]) this.#step(uid, { kind: 'time', nowMs });
  }

  /** The user's audio ended (left, unpublished, the recording stops): an interval in progress ends at its last voice. */
  end(uid: string): void {
    this.#step(uid, { kind: 'time', nowMs: Number.POSITIVE_INFINITY });
    this.#states.delete(uid);
  }

  endAll(): void {
    for (const uid of [...this.#states.keys()]) this.end(uid);
  }

  /** Ended intervals, then those in progress (to their last voice so far), in start order. */
  intervals(): SpeechInterval[] {
    const open: SpeechInterval[] = [];
    for (const [uid, s] of this.#states) {
      if (s.kind === 'speaking' && s.voicedEndMs - s.startMs >= this.rules.minSpeechMs) open.push({ uid, ...interval(s) });
    }
    return [...this.#ended, ...open].sort((a, b) => a.startMs - b.startMs || a.uid.localeCompare(b.uid));
  }

  /** Where the user's current voice began (in onset or speaking), if it has one. */
  voiceStart(uid: string): number | undefined {
    const s = this.#states.get(uid);
    return s && s.kind !== 'silent' ? s.startMs : undefined;
  }

  /** The intervals that ended since the last call, in the order they ended. */
  takeEnded(): SpeechInterval[] {
    const out = this.#ended.slice(this.#taken);
    this.#taken = this.#ended.length;
    return out;
  }

  /** Whether an interval began, grew or ended since the last call (the files are rewritten only then). */
  takeChanged(): boolean {
    const changed = this.#changed;
    this.#changed = false;
    return changed;
  }

  #step(uid: string, input: VoiceInput): void {
    const before = this.#states.get(uid) ?? SILENT;
    const { state, ended } = nextVoiceState(before, input, this.rules);
    if (ended) this.#ended.push({ uid, ...ended });
    if (ended || (state.kind === 'speaking' && (before.kind !== 'speaking' || before.voicedEndMs !== state.voicedEndMs))) this.#changed = true;
    this.#states.set(uid, state);
  }
}
