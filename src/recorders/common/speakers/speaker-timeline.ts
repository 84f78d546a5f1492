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
import { levelFrames, SpeechDetector, speakersDocument, speakersVtt, type TimelinePlaylist } from '../../../media/speech/index.ts';
import type { RecordedFile } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE } from '../../../recording/index.ts';
import type { RecorderSignals } from '../events.ts';

export interface SpeakerTimelineDeps {
  readonly naming: SessionNaming;
  readonly workDir: string;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
  readonly signals: RecorderSignals;
  readonly log: Logger;
  /** The session's playlists now, with their closed slices: the intervals' media times are given in each. */
  readonly playlists: () => TimelinePlaylist[];
  /** The WebVTT cue time of an instant (the mix playlist's media time; individual: since the recording began). */
  readonly cueSecondsAt: (utcMs: number) => number;
  /** The file list gets the two files the first time they are uploaded (`mixedAllUser` as the mode's files). */
  readonly list: (files: readonly RecordedFile[]) => void;
  readonly mixedAllUser: boolean;
  /** Sample rate of the PCM handed in. */
  readonly sampleRate: number;
}

export class SpeakerTimeline {
  readonly #detector = new SpeechDetector();
  #listed = false;

  constructor(private readonly d: SpeakerTimelineDeps) {}

  /** A run of a user's decoded audio that began at `senderTimeMs` (Unix ms on the sender's clock). */
  pcm(uid: string, senderTimeMs: number, pcm: PcmFrame): void {
    for (const f of levelFrames(senderTimeMs, pcm, this.d.sampleRate)) this.#detector.frame(uid, f);
  }

  /** The user's audio ended (left, unpublished, dropped by an update). */
  userEnded(uid: string): void {
    this.#detector.end(uid);
  }

  /** After a slice closed (on the output's serial chain): the files rewritten when the timeline changed. */
  async sliceClosed(nowMs: number): Promise<void> {
    this.#detector.advance(nowMs);
    if (!this.#detector.takeChanged()) return;
    await this.#write(false);
  }

  /** At the stop, after the last slice: every interval ends, and the files are written a last time. */
  async finish(): Promise<void> {
    this.#detector.endAll();
    this.#detector.takeChanged();
    await this.#write(true);
  }

  async #write(final: boolean): Promise<void> {
    const { naming, workDir, upload } = this.d;
    const intervals = this.#detector.intervals();
    const playlists = this.d.playlists();
    const json = JSON.stringify(speakersDocument({ sid: naming.sid, cname: naming.cname, final, intervals, playlists }), null, 2);
    const vtt = speakersVtt(intervals, this.d.cueSecondsAt);
    await mkdir(workDir, { recursive: true });
    const written: RecordedFile[] = [];
    const firstStart = Math.min(...playlists.flatMap((p) => p.slices.slice(0, 1).map((s) => s.startMs)));
    for (const [ext, body, contentType] of [
      ['json', json, 'application/json'],
      ['vtt', vtt, 'text/vtt; charset=utf-8'],
    ] as const) {
      const local = join(workDir, `speakers.${ext}`);
      await writeFile(local, body);
      const key = upload.objectKey(speakersName(naming, ext));
      const res = await upload.enqueue(local, key, { contentType });
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
