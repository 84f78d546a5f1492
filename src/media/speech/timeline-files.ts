/**
 * The speaker timeline's two files (docs/tasks/speaker-timeline.md, "Files"): `…_speakers.json` with every interval
 * in UTC and in the media time of each playlist that holds the speaker's sound, and `…_speakers.vtt` with one cue per
 * interval and a voice span naming the uid. Pure: the recorder passes the intervals and its playlists' slices.
 */
import type { SpeechInterval } from './speech-detector.ts';

/** A closed slice of a playlist: where it starts (Unix ms) and how long it plays. */
export interface TimelineSlice {
  readonly startMs: number;
  readonly durationSec: number;
}

export interface TimelinePlaylist {
  /** Its object key, as the file list names it. */
  readonly fileName: string;
  /** Whose sound it holds (individual mode); undefined: everyone's (mix). */
  readonly uid: string | undefined;
  readonly slices: readonly TimelineSlice[];
}

/**
 * Where a user's levels come from: the RFC 6464 level in each of its audio packets (its publisher measured it, as
 * Chromium does), or its audio decoded here.
 */
export type LevelSource = 'audio-level' | 'decoded';

export interface SpeakersDocument {
  readonly version: 1;
  readonly sid: string;
  readonly cname: string;
  /** False while the session records (the file is rewritten as it grows), true once it stopped. */
  readonly final: boolean;
  /** Each user's level source, for every user heard so far. */
  readonly levelSources: Readonly<Record<string, LevelSource>>;
  readonly playlists: readonly { readonly fileName: string; readonly uid?: string }[];
  readonly speakers: readonly {
    readonly uid: string;
    readonly startUtcMs: number;
    readonly endUtcMs: number;
    readonly levelDbfs: number;
    /** What the transcription service answered for it (`recordingConfig.transcription`), once it did. */
    readonly text?: string;
    /** Where the interval plays in each playlist with the speaker's sound, seconds from its start. */
    readonly media: readonly { readonly fileName: string; readonly startSec: number; readonly endSec: number }[];
  }[];
}

const millis = (sec: number): number => Math.round(sec * 1000) / 1000;
const present = (text: string | undefined): { text?: string } => (text === undefined ? {} : { text });

/**
 * Seconds into a playlist at which the instant `utcMs` plays. The slices play back to back, so a held or lost time
 * between two of them is skipped: an instant in such a gap maps to the next slice's start, one before the first to
 * 0. After the last closed slice the stream is taken to go on without a gap (the slice in progress).
 */
export function mediaSecondsAt(utcMs: number, slices: readonly TimelineSlice[]): number | undefined {
  if (slices.length === 0) return undefined;
  let played = 0;
  for (const s of slices) {
    if (utcMs <= s.startMs) return millis(played);
    const into = (utcMs - s.startMs) / 1000;
    if (into <= s.durationSec) return millis(played + into);
    played += s.durationSec;
  }
  const last = slices.at(-1)!;
  return millis(played - last.durationSec + (utcMs - last.startMs) / 1000);
}

export function speakersDocument(input: {
  readonly sid: string;
  readonly cname: string;
  readonly final: boolean;
  readonly intervals: readonly SpeechInterval[];
  readonly playlists: readonly TimelinePlaylist[];
  readonly levelSources?: Readonly<Record<string, LevelSource>>;
  readonly textOf?: (i: SpeechInterval) => string | undefined;
}): SpeakersDocument {
  const playlists = input.playlists.filter((p) => p.slices.length > 0);
  return {
    version: 1,
    sid: input.sid,
    cname: input.cname,
    final: input.final,
    levelSources: input.levelSources ?? {},
    playlists: playlists.map((p) => ({ fileName: p.fileName, ...(p.uid !== undefined ? { uid: p.uid } : {}) })),
    speakers: input.intervals.map((i) => ({
      uid: i.uid,
      startUtcMs: Math.round(i.startMs),
      endUtcMs: Math.round(i.endMs),
      levelDbfs: i.levelDbfs,
      ...present(input.textOf?.(i)),
      media: playlists
        .filter((p) => p.uid === undefined || p.uid === i.uid)
        .map((p) => ({ fileName: p.fileName, startSec: mediaSecondsAt(i.startMs, p.slices)!, endSec: mediaSecondsAt(i.endMs, p.slices)! })),
    })),
  };
}

/** `hh:mm:ss.ttt`, as WebVTT writes a cue time. */
export function vttTime(sec: number): string {
  const ms = Math.max(0, Math.round(sec * 1000));
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)}.${p(ms % 1000, 3)}`;
}

const escapeVtt = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * One cue per interval, in start order, timed by `secondsAt` (the mix playlist's media time, or the time since the
 * recording began: docs/tasks/speaker-timeline.md). The voice span names the uid; its text is the transcript when
 * there is one, else the uid.
 */
export function speakersVtt(
  intervals: readonly SpeechInterval[],
  secondsAt: (utcMs: number) => number,
  textOf: (i: SpeechInterval) => string | undefined = () => undefined,
): string {
  const cues = [...intervals]
    .sort((a, b) => a.startMs - b.startMs)
    .map((i, n) => {
      const uid = escapeVtt(i.uid);
      // A blank line or "-->" would end or break the cue: the text stays on its lines.
      const text = textOf(i)?.replace(/-->/g, '->').replace(/\n\s*\n/g, '\n').trim();
      return `${n + 1}\n${vttTime(secondsAt(i.startMs))} --> ${vttTime(secondsAt(i.endMs))}\n<v ${uid}>${text ? escapeVtt(text) : `uid ${uid}`}</v>\n`;
    });
  return ['WEBVTT\n', ...cues].join('\n');
}
