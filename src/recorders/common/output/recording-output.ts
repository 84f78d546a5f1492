/**
 * A session's recording output, the sink every mode writes into (source → pipeline → sink): its HLS tracks, the one
 * serial chain their uploads run on (a slice always before the playlist that names it), the first-upload status,
 * and the file list the session reports: earlier runs' files, playlists recovered at start, this run's playlists,
 * then the outputs written at the end (MP4s, post-processing), and the wait for the last upload.
 */
import { join } from 'node:path';
import type { Logger } from '../../../log/index.ts';
import type { SessionNaming } from '../../../media/index.ts';
import type { RecordedFile, RecorderReport, UploadingStatus } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, EVENT_STATUS } from '../../../recording/index.ts';
import type { RecorderSignals } from '../events.ts';
import { HlsTrackWriter, type ClosedSliceFile, type HlsTrackOptions } from './hls-track.ts';
import { generationDir, type RecoveredTrack } from './recovery.ts';
import { writeMp4Files, type Mp4Slice, type Mp4Split } from './mp4.ts';

/** Whose media a file holds, as the file list says it. */
export type FileOwner = Pick<RecordedFile, 'trackType' | 'uid' | 'mixedAllUser'>;

/** One HLS track of the output. */
export interface OutputTrack {
  readonly writer: HlsTrackWriter;
  readonly owner: FileOwner;
  /** Every slice closed on this track in this run, handed over or not (the MP4s are cut from them). */
  readonly closed: Mp4Slice[];
  /** Event 42 `recorder_slice_start` for each (re)started stream, naming it so; absent: no event 42. */
  readonly sliceStart: { readonly streamUid: string; readonly trackType: string } | undefined;
}

/** An earlier run of the session, recovered at start (common/recovery.ts). */
export interface RecoveredRun {
  readonly naming: SessionNaming;
  readonly track: RecoveredTrack;
}

export interface RecordingOutputDeps {
  readonly previousFiles: readonly RecordedFile[];
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey' | 'finish'>;
  readonly report: Pick<RecorderReport, 'files'>;
  readonly signals: RecorderSignals;
  readonly log: Logger;
  /** Playlists are published (`hls` in the file types); false: slices are only kept locally, for the MP4s. */
  readonly hls: boolean;
}

export class RecordingOutput {
  readonly #tracks: OutputTrack[] = [];
  readonly #recovered: RecordedFile[] = [];
  readonly #outputs: RecordedFile[] = [];
  /** Earlier runs of a one-track output (mix, web), recovered at start: their slices become their MP4s. */
  #runs: readonly RecoveredRun[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  #firstUploaded = false;

  constructor(private readonly d: RecordingOutputDeps) {}

  /** A new HLS track (its playlist listed once it names a slice). */
  track(hls: Omit<HlsTrackOptions, 'upload'>, owner: FileOwner, sliceStart?: OutputTrack['sliceStart']): OutputTrack {
    const t: OutputTrack = { writer: new HlsTrackWriter({ ...hls, upload: this.d.upload }), owner, closed: [], sliceStart };
    this.#tracks.push(t);
    return t;
  }

  /** Runs a recording step after every earlier one (uploads happen in close order); a failure is logged. */
  serial(fn: () => Promise<void> | void): void {
    this.#chain = this.#chain.then(fn).catch((e: Error) => this.d.log.error({ err: e.message }, 'recording step failed'));
  }

  /** Resolves once every step queued so far has run. */
  async settled(): Promise<void> {
    await this.#chain;
  }

  /** Playlists of earlier runs recovered at start (listed after the earlier runs' files, each once). */
  listRecovered(files: readonly RecordedFile[]): void {
    this.#recovered.push(...files);
  }

  /** Earlier runs of a one-track output recovered at start: listed (with `hls`), and cut into MP4s at the end. */
  recoveredRuns(t: OutputTrack, runs: readonly RecoveredRun[]): void {
    this.#runs = runs;
    if (!this.d.hls) return;
    this.listRecovered(runs.map(({ track }) => ({ fileName: track.playlistKey, ...t.owner, isPlayable: true, sliceStartTime: track.firstStartMs })));
  }

  /** Whether earlier runs were recovered (a resumed session that records nothing new still recorded). */
  get recoveredAny(): boolean {
    return this.#runs.length > 0;
  }

  /** What earlier runs recorded, listed from the start (nothing to report for a first run). */
  reportEarlierFiles(): void {
    if (this.files().length > 0) this.reportFiles();
  }

  /** This run recorded something (a slice handed over, or kept for the MP4s). */
  get recorded(): boolean {
    return this.#tracks.some((t) => t.writer.recorded);
  }

  /**
   * A closed slice (run it through serial): kept, or uploaded and named by the track's playlist, with its events
   * (uploader error, 42, 4 `fileInfos`, status 5) and the file list reported. `afterPlaylist` runs each time the
   * playlist reached the uploader.
   */
  async sliceClosed(t: OutputTrack, s: ClosedSliceFile & { readonly bytes?: number }, afterPlaylist?: () => Promise<void>): Promise<void> {
    t.closed.push({ localPath: s.localPath, startMs: s.startMs, durationSec: s.durationSec, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) });
    if (!this.d.hls) {
      t.writer.keep(s);
      return;
    }
    const out = await t.writer.addSlice(s);
    if (!out.ok) {
      this.d.signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.uploadFailed, out.message);
      return;
    }
    if (out.startsStream && t.sliceStart) {
      this.d.signals.emit('sliceStart', { startUtcMs: s.startMs, discontinueUtcMs: out.discontinueUtcMs, mixedAllUser: t.owner.mixedAllUser, ...t.sliceStart });
    }
    if (out.playlistUploaded) {
      if (out.firstPlaylist) this.d.signals.emit('fileInfos', { fileList: t.writer.playlistKey });
      this.fileUploaded();
      await afterPlaylist?.();
    }
    this.reportFiles();
  }

  /** A file reached the uploader: status 5 `firstFileUploaded` the first time. */
  fileUploaded(): void {
    if (this.#firstUploaded) return;
    this.#firstUploaded = true;
    this.d.signals.status('firstFileUploaded');
  }

  /** Earlier runs' files, recovered playlists, this run's playlists, then the outputs written at the end. */
  files(): RecordedFile[] {
    const out: RecordedFile[] = [...this.d.previousFiles];
    for (const f of this.#recovered) if (!out.some((o) => o.fileName === f.fileName)) out.push(f);
    if (this.d.hls) {
      for (const { writer, owner } of this.#tracks) {
        if (writer.firstStartMs === undefined) continue;
        out.push({ fileName: writer.playlistKey, ...owner, isPlayable: true, sliceStartTime: writer.firstStartMs });
      }
    }
    return [...out, ...this.#outputs.filter((m) => !out.some((f) => f.fileName === m.fileName))];
  }

  /** Reports the file list to the control plane; returns it. */
  reportFiles(): RecordedFile[] {
    const files = this.files();
    this.d.report.files(files);
    return files;
  }

  /** Every playlist finished with `#EXT-X-ENDLIST` (after the last slice's step). */
  async endPlaylists(): Promise<void> {
    await this.settled();
    if (!this.d.hls) return;
    for (const t of this.#tracks) await t.writer.end();
  }

  /** Files written after the live part (MP4s, post-processing outputs), listed last. */
  addOutputs(files: readonly RecordedFile[]): void {
    this.#outputs.push(...files);
  }

  /**
   * The MP4s of a one-track output (mix, web), listed last: each earlier run's from its slices still on disk (under
   * its names, in `<dir>/g<k>`), then this run's (in `dir`). A run whose MP4s fail is an error event; the others
   * are still written.
   */
  async writeMp4s(
    t: OutputTrack,
    naming: SessionNaming,
    how: { readonly dir: string; readonly split: Mp4Split; readonly streams: { readonly audio: boolean; readonly video: boolean } },
  ): Promise<void> {
    const { signals, upload, log } = this.d;
    const all = [
      ...this.#runs.map((r) => ({ naming: r.naming, slices: r.track.slices, workDir: join(how.dir, generationDir(r.naming.backupIndex)) })),
      { naming, slices: t.closed, workDir: how.dir },
    ];
    for (const run of all.filter((r) => r.slices.length > 0)) {
      try {
        const files = await writeMp4Files(run, {
          split: how.split,
          streams: how.streams,
          owner: t.owner,
          upload,
          onUploadRefused: (message) => signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.uploadFailed, message),
        });
        this.addOutputs(files);
      } catch (e) {
        log.error({ err: (e as Error).message }, 'MP4 files failed');
        signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.medium, ERROR_CODE.postProcessFailed, 'MP4 writing failed');
      }
    }
  }

  /**
   * The last step: waits until every file is in the bucket (or the backup spool), then says so with event 31
   * `uploaded` or 32 `backuped` and the file list (docs/notify.md, "Recorder events").
   */
  async awaitUploads(files: readonly RecordedFile[] = this.files()): Promise<UploadingStatus> {
    const { uploadingStatus } = await this.d.upload.finish();
    this.d.signals.emit(uploadingStatus === 'uploaded' ? 'uploaded' : 'backuped', { status: EVENT_STATUS.ok, fileList: files.map((f) => ({ ...f })) });
    return uploadingStatus;
  }
}
