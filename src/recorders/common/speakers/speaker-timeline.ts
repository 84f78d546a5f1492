/**
 * The speaker timeline stage (reeltime's `recordingConfig.speakerTimeline`, individual and mix modes): each user's
 * decoded audio in, `…_speakers.json` and `…_speakers.vtt` out, beside the recording and listed with its files,
 * rewritten as the session goes (after a slice when an interval began, grew or ended) and finished at the stop
 * (docs/tasks/speaker-timeline.md).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../log/index.ts';
import { speakersName, type SessionNaming } from '../../../media/index.ts';
import type { PcmFrame } from '../../../media/mix/index.ts';
import {
  type LevelFrame,
  levelFrames,
  type LevelSource,
  SPEECH_SAMPLE_RATE,
  SpeechAudio,
  SpeechDetector,
  speakersDocument,
  speakersVtt,
  type SpeechInterval,
  type TimelinePlaylist,
  toSpeechRate,
  wavFile,
} from '../../../media/speech/index.ts';
import type { RecordedFile, TranscriptionTarget } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE } from '../../../recording/index.ts';
import type { RecorderSignals } from '../events.ts';
import { Transcriber } from './transcriber.ts';
import type { OutboundPolicy } from '../../../net/index.ts';

/** At the stop, the files wait this long at most for the transcripts still coming. */
export const TRANSCRIPTS_AT_STOP_MS = 30_000;

export interface SpeakerTimelineDeps {
  readonly naming: SessionNaming;
  readonly workDir: string;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
  readonly signals: RecorderSignals;
  readonly log: Logger;
  /** The session's playlists now, with their closed slices: the intervals' media times are given in each. */
  readonly playlists: () => TimelinePlaylist[];
  /** The WebVTT cue time of an instant (mix: the mix playlist's media time); absent: seconds since the first slice. */
  readonly cueSecondsAt?: (utcMs: number) => number;
  /** The file list gets the two files the first time they are uploaded (`mixedAllUser` as the mode's files). */
  readonly list: (files: readonly RecordedFile[]) => void;
  readonly mixedAllUser: boolean;
  /** Sample rate of the PCM handed in. */
  readonly sampleRate: number;
  /** `recordingConfig.transcription`: each finished interval's audio goes here. */
  readonly transcriber?: Transcriber | undefined;
}

/** What a session gives its timeline: the stage's deps less the transcriber, which is made here from the target. */
export interface SessionTimelineDeps extends Omit<SpeakerTimelineDeps, 'transcriber' | 'workDir'> {
  /** The session's work dir (the files are written under `speakers/`). */
  readonly sessionDir: string;
  readonly transcription: TranscriptionTarget | undefined;
  /** The outbound guard's policy, for the transcription URL. */
  readonly policy: OutboundPolicy;
}

/** A session's timeline (individual and mix alike), with a transcriber when the start asked for one. */
export function sessionSpeakerTimeline(d: SessionTimelineDeps): SpeakerTimeline {
  const { sessionDir, transcription, policy, ...rest } = d;
  const transcriber = transcription && new Transcriber({ target: transcription, policy, log: d.log, sid: d.naming.sid, cname: d.naming.cname });
  return new SpeakerTimeline({ ...rest, workDir: join(sessionDir, 'speakers'), transcriber });
}

export class SpeakerTimeline {
  readonly #detector = new SpeechDetector();
  /** Speech audio held for the transcriber (with one only). */
  readonly #audio: SpeechAudio | undefined;
  #listed = false;
  /** Where each user's levels come from (the files say it). */
  readonly #sources = new Map<string, LevelSource>();
  /** Transcripts in the files last written. */
  #textsWritten = 0;

  constructor(private readonly d: SpeakerTimelineDeps) {
    this.#audio = d.transcriber ? new SpeechAudio() : undefined;
  }

  /** A user's level of one packet as its publisher measured it (RFC 6464). */
  level(uid: string, frame: LevelFrame): void {
    this.#sources.set(uid, 'audio-level');
    this.#detector.frame(uid, frame);
    this.#transcribeEnded();
  }

  /**
   * A run of a user's decoded audio that began at `senderTimeMs` (Unix ms on the sender's clock): its levels too,
   * unless its packets carry them (`level`; then the audio is only held for the transcriber).
   */
  pcm(uid: string, senderTimeMs: number, pcm: PcmFrame, levelsInPackets = false): void {
    if (!levelsInPackets) {
      this.#sources.set(uid, 'decoded');
      for (const f of levelFrames(senderTimeMs, pcm, this.d.sampleRate)) this.#detector.frame(uid, f);
      // An interval these frames ended is cut from what is held before this run goes in (and trims it).
      this.#transcribeEnded();
    }
    this.#audio?.push(uid, senderTimeMs, toSpeechRate(pcm, this.d.sampleRate), this.#detector.voiceStart(uid));
  }

  /** The user's audio ended (left, unpublished, dropped by an update). */
  userEnded(uid: string): void {
    this.#detector.end(uid);
    this.#transcribeEnded();
    this.#audio?.forget(uid);
  }

  /** After a slice closed (on the output's serial chain): the files rewritten when the timeline or a text changed. */
  async sliceClosed(nowMs: number): Promise<void> {
    this.#detector.advance(nowMs);
    this.#transcribeEnded();
    const texts = this.d.transcriber?.texts ?? 0;
    if (!this.#detector.takeChanged() && texts === this.#textsWritten) return;
    await this.#write(false);
  }

  /** At the stop, after the last slice: every interval ends, its transcript is waited for, the files written a last time. */
  async finish(): Promise<void> {
    this.#detector.endAll();
    this.#transcribeEnded();
    this.#detector.takeChanged();
    await this.d.transcriber?.settled(TRANSCRIPTS_AT_STOP_MS);
    await this.#write(true);
  }

  #transcribeEnded(): void {
    const { transcriber } = this.d;
    const audio = this.#audio;
    if (!transcriber || !audio) return;
    for (const i of this.#detector.takeEnded()) transcriber.submit(i, wavFile(audio.cut(i.uid, i.startMs, i.endMs), SPEECH_SAMPLE_RATE));
  }

  async #write(final: boolean): Promise<void> {
    const { naming, workDir, upload } = this.d;
    const intervals = this.#detector.intervals();
    const playlists = this.d.playlists();
    const transcriber = this.d.transcriber;
    const textOf = transcriber ? (i: SpeechInterval) => transcriber.textOf(i) : undefined;
    this.#textsWritten = transcriber?.texts ?? 0;
    const levelSources = Object.fromEntries(this.#sources);
    const json = JSON.stringify(speakersDocument({ sid: naming.sid, cname: naming.cname, final, intervals, playlists, levelSources, ...(textOf ? { textOf } : {}) }), null, 2);
    const firstStart = Math.min(...playlists.flatMap((p) => p.slices.slice(0, 1).map((s) => s.startMs)));
    const sinceFirst = (utcMs: number) => (Number.isFinite(firstStart) ? (utcMs - firstStart) / 1000 : 0);
    const vtt = speakersVtt(intervals, this.d.cueSecondsAt ?? sinceFirst, textOf);
    await mkdir(workDir, { recursive: true });
    const written: RecordedFile[] = [];
    for (const [ext, body] of [
      ['json', json],
      ['vtt', vtt],
    ] as const) {
      const local = join(workDir, `speakers.${ext}`);
      await writeFile(local, body);
      const key = upload.objectKey(speakersName(naming, ext));
      // Its content type from its name (storage/naming.ts), as every upload without one.
      const res = await upload.enqueue(local, key);
      if (!res.ok) {
        this.d.signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.uploadFailed, res.message);
        return;
      }
      written.push({
        fileName: key,
        trackType: 'audio',
        uid: '0',
        mixedAllUser: this.d.mixedAllUser,
        isPlayable: false,
        sliceStartTime: Number.isFinite(firstStart) ? firstStart : (intervals[0]?.startMs ?? 0),
      });
    }
    if (!this.#listed) {
      this.#listed = true;
      this.d.list(written);
    }
    this.d.log.debug({ intervals: intervals.length, final }, 'speaker timeline written');
  }
}
