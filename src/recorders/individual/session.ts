/**
 * One individual-mode recording session, assembled from the shared recorder parts (recorders/common): follows
 * the channel (planSubscriptions), links to each publisher over WHEP (PublisherLinks), slices each track through
 * a TrackPipeline into its HLS track writer, reports status, files and events, and ends on stop or after
 * maxIdleTime (IdleTimer, injected clock); finalize.ts does what follows the live part.
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ChannelEvent, MediaKind } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import {
  mergedPlaylistName,
  playlistName,
  renderMergedIndex,
  snapshotName,
  TrackPipeline,
  type ClosedSlice,
  type RtpTrackDescription,
  type SessionNaming,
  type Snapshot,
} from '../../media/index.ts';
import type {
  RecordedFile,
  RecorderReport,
  RecorderUpdate,
  RecordingTask,
  StopResult,
} from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import type { ChannelRefusal, ChannelSource } from '../common/channel-source.ts';
import {
  ERROR_CODE,
  ERROR_LEVEL,
  EVENT_MODULE,
  LEAVE_CODE,
  recorderSignals,
  WARN_CODE,
  type RecorderSignals,
} from '../common/events.ts';
import { PLAYLIST_CONTENT_TYPE } from '../common/hls-track.ts';
import { HoldState } from '../common/hold.ts';
import { planSubscriptions } from '../common/plan.ts';
import { PublisherLinks } from '../common/publisher-links.ts';
import { IdleTimer, ProgressReporter } from '../common/session-timers.ts';
import { applyLists, wants, type Subscription } from '../common/subscription.ts';
import { uploadEventReporter } from '../common/upload-events.ts';
import { finalizeRecording } from './finalize.ts';
import type { IndividualOptions } from './options.ts';
import { recoverLeftovers } from './recovery.ts';
import { TrackRecording } from './track-recording.ts';

export interface SessionDeps {
  readonly task: RecordingTask;
  readonly options: IndividualOptions;
  readonly report: RecorderReport;
  readonly source: ChannelSource;
  readonly upload: UploadSession;
  readonly clock: Clock;
  readonly log: Logger;
  readonly workDir: string;
}

export class IndividualSession {
  private readonly naming: SessionNaming;
  private subscription: Subscription;
  private readonly tracks = new Map<string, TrackRecording>();
  private readonly links: PublisherLinks;
  private readonly idle: IdleTimer;
  private readonly progress: ProgressReporter;
  private unlisten: (() => void) | undefined;
  private unlistenUploads: (() => void) | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private ending: Promise<StopResult> | undefined;
  private firstUploaded = false;
  private profileWarned = false;
  private readonly selfUid: number;
  private readonly signals: RecorderSignals;
  private readonly hold: HoldState;
  /** Hold changes run one after another: a resume waits until the hold has ended every stream. */
  private holdChange: Promise<void> = Promise.resolve();

  constructor(private readonly d: SessionDeps) {
    this.signals = recorderSignals(d.report);
    this.hold = new HoldState(d.task.clientRequest.recordingConfig?.onhold === true, d.clock.now());
    this.naming = { sid: d.task.sid, cname: d.task.cname, backupIndex: d.options.backupIndex };
    this.subscription = d.options.subscription;
    this.selfUid = Number(d.task.uid);
    this.idle = new IdleTimer(d.clock, d.options.maxIdleMs, () => {
      void this.end('idle').then(
        (r) => d.report.ended({ reason: 'idle', uploadingStatus: r.uploadingStatus, recordedAnything: r.recordedAnything }),
        (e: Error) => d.report.ended({ reason: 'error', uploadingStatus: 'unknown', recordedAnything: false, message: e.message }),
      );
    });
    this.progress = new ProgressReporter(d.clock, d.upload, this.signals, d.log);
    this.links = new PublisherLinks(d.source, {
      onPacket: (uid, kind, track, packet) => this.onPacket(uid, kind, track, packet),
      onRefused: (e) => void this.fail(e),
      onFailed: (uid, e) => {
        // The publisher left between the event and the request, or a transient failure: a later event retries.
        d.log.warn({ uid, err: e.message }, 'WHEP subscribe failed');
        this.signals.warning(EVENT_MODULE.recorder, WARN_CODE.subscribeFailed, `subscribing to uid ${uid} failed`);
      },
    });
  }

  /** Joins: checks the token, listens to the channel, subscribes to whoever publishes. Throws ChannelRefusal. */
  async start(): Promise<void> {
    const { report } = this.d;
    const { signals } = this;
    signals.status('recorderStarting');
    signals.emit('uploaderStarted', { status: 0 });
    signals.status('uploaderReady');
    await this.d.source.authorize();
    this.unlisten = this.d.source.onEvent((e) => this.onChannelEvent(e));
    this.unlistenUploads = this.d.upload.onEvent(uploadEventReporter(signals));
    this.progress.start();
    signals.emit('recorderStarted', { status: 0 });
    signals.status('recorderReady');
    if (this.hold.onhold) signals.emit('recorderOnHold', { UtcMs: this.hold.windows[0]!.startMs });
    report.sliceStartTime(this.d.clock.now());
    if (this.d.task.resumed) {
      const recovered = await recoverLeftovers({
        sessionDir: dirname(this.d.workDir),
        currentGeneration: basename(this.d.workDir),
        naming: { sid: this.d.task.sid, cname: this.d.task.cname },
        upload: this.d.upload,
        playlistKey: (n, uid, kind) => playlistName(n, uid, kind),
      });
      if (recovered.length > 0) this.d.log.info({ recovered }, 'slices of the previous run recovered');
    }
    if (this.d.task.previousFiles.length > 0) report.files(this.d.task.previousFiles);
    this.reconcile();
  }

  private onChannelEvent(e: ChannelEvent): void {
    if (this.ending) return;
    if (e.uid === this.selfUid) return;
    if (e.kind === 'leave' || e.kind === 'unpublish') {
      // The user's tracks ended: close their streams now so the next ones start a discontinuity.
      void this.dropUser(String(e.uid));
    }
    // Membership announces a change before applying it, in the same synchronous step: look at the channel once
    // that step is over. A deferral, not a timer, so it does not wait for the injected clock.
    queueMicrotask(() => this.reconcile());
  }

  /** Brings subscriptions in line with the channel membership and the subscription lists. */
  private reconcile(): void {
    if (this.ending) return;
    const snap = this.d.source.snapshot();
    const plan = planSubscriptions({ profile: snap.profile, participants: snap.participants, selfUid: this.selfUid }, this.subscription, this.d.options.profile, {
      links: this.links.kinds(),
      streams: [...this.tracks.values()].filter((t) => t.pipeline),
      profileWarned: this.profileWarned,
    });
    if (plan.profileWarning !== undefined) {
      this.profileWarned = true;
      this.signals.warning(EVENT_MODULE.recorder, WARN_CODE.profileMismatch, plan.profileWarning);
    }
    if (plan.idle) this.idle.arm();
    else this.idle.disarm();
    for (const uid of plan.drop) void this.dropUser(uid);
    for (const { uid, kinds } of plan.connect) this.links.connect(uid, kinds);
    // Kinds switched off by update end their current stream.
    for (const { uid, kind } of plan.endStreams) {
      const t = this.tracks.get(`${uid}/${kind}`);
      if (t) void this.endStream(t);
    }
  }

  private async dropUser(uid: string): Promise<void> {
    await this.links.drop(uid);
    await Promise.all([...this.tracks.values()].filter((t) => t.uid === uid).map((t) => this.endStream(t)));
  }

  private track(uid: string, kind: MediaKind): TrackRecording {
    const key = `${uid}/${kind}`;
    let t = this.tracks.get(key);
    if (!t) {
      t = new TrackRecording(uid, kind, this.d.workDir, this.naming, this.d.upload);
      this.tracks.set(key, t);
    }
    return t;
  }

  private onPacket(uid: string, kind: MediaKind, desc: RtpTrackDescription, packet: Buffer): void {
    if (this.ending) return;
    // On hold nothing reaches a slicer; the links stay up, so resuming needs only a keyframe.
    if (this.hold.onhold) return;
    if (!wants(this.subscription, kind, uid)) return;
    const t = this.track(uid, kind);
    if (!t.pipeline) this.beginStream(t, desc);
    t.pipeline?.push(packet);
  }

  private beginStream(t: TrackRecording, desc: RtpTrackDescription): void {
    t.beginStream(desc.codec);
    const pipeline = new TrackPipeline(
      {
        track: desc,
        workDir: t.streamDir(),
        audioOutput: this.d.options.streamMode === 'original' ? 'copy' : 'transcode',
        snapshotIntervalSec: this.d.options.snapshotSec,
      },
      {
        onSlice: (s) => this.serial(() => this.sliceClosed(t, s)),
        onSnapshot: (s) => this.serial(() => this.snapshotTaken(t, s)),
        onFailure: (exit) => {
          this.d.log.warn({ uid: t.uid, kind: t.kind, code: exit.code, stderr: exit.stderrTail.slice(-300) }, 'slicer exited');
          this.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.medium, ERROR_CODE.slicerStopped, `${t.kind} slicer of uid ${t.uid} stopped`);
          if (t.pipeline === pipeline) t.pipeline = undefined;
        },
      },
    );
    t.pipeline = pipeline;
    this.streamState(t, 0);
    void pipeline.start().then(
      () => {
        if (t.kind === 'video') this.links.requestKeyframe(t.uid);
      },
      (e: Error) => this.d.log.error({ err: e.message }, 'slicer did not start'),
    );
  }

  private streamState(t: TrackRecording, state: 0 | 1): void {
    this.signals.emit(t.kind === 'audio' ? 'audioStreamState' : 'videoStreamState', {
      streamUid: t.uid,
      state,
      UtcMs: this.d.clock.now(),
    });
  }

  private async endStream(t: TrackRecording): Promise<void> {
    const p = t.pipeline;
    if (!p) return;
    t.pipeline = undefined;
    await p.stop();
    this.streamState(t, 1);
    await this.chain;
  }

  /** Uploads happen in close order: a slice before the playlist that names it. */
  private serial(fn: () => Promise<void>): void {
    this.chain = this.chain.then(fn).catch((e: Error) => this.d.log.error({ err: e.message }, 'recording step failed'));
  }

  private async sliceClosed(t: TrackRecording, s: ClosedSlice): Promise<void> {
    if (!this.d.options.hls) {
      t.hls.keep(s);
      return;
    }
    const out = await t.hls.addSlice(s);
    if (!out.ok) {
      this.signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.uploadFailed, out.message);
      return;
    }
    if (out.startsStream) {
      this.signals.emit('sliceStart', {
        startUtcMs: s.startMs,
        discontinueUtcMs: out.discontinueUtcMs,
        mixedAllUser: false,
        streamUid: t.uid,
        trackType: t.kind,
      });
    }
    if (out.playlistUploaded) await this.playlistUploaded(t, out.firstPlaylist);
    this.reportFiles();
  }

  private async playlistUploaded(t: TrackRecording, first: boolean): Promise<void> {
    if (first) this.signals.emit('fileInfos', { fileList: t.hls.playlistKey });
    this.firstFileUploaded();
    if (this.d.options.streamMode === 'standard') await this.uploadMergedIndex(t.uid);
  }

  private firstFileUploaded(): void {
    if (this.firstUploaded) return;
    this.firstUploaded = true;
    this.signals.status('firstFileUploaded');
  }

  private async uploadMergedIndex(uid: string): Promise<void> {
    const a = this.tracks.get(`${uid}/audio`);
    const v = this.tracks.get(`${uid}/video`);
    const uri = (t: TrackRecording | undefined) => (t?.hls.recorded ? playlistName(this.naming, uid, t.kind) : undefined);
    const audioUri = uri(a);
    const videoUri = uri(v);
    if (!audioUri && !videoUri) return;
    const local = join(this.d.workDir, `${uid}-merged.m3u8`);
    await writeFile(local, renderMergedIndex({ audioUri, videoUri }));
    await this.d.upload.enqueue(local, this.d.upload.objectKey(mergedPlaylistName(this.naming, uid)), { contentType: PLAYLIST_CONTENT_TYPE });
  }

  private async snapshotTaken(t: TrackRecording, s: Snapshot): Promise<void> {
    const key = this.d.upload.objectKey(snapshotName(this.naming, t.uid, s.atMs));
    const res = await this.d.upload.enqueue(s.localPath, key, { contentType: 'image/jpeg' });
    if (!res.ok) {
      // A snapshot fault never stops the recording.
      this.signals.warning(EVENT_MODULE.recorder, WARN_CODE.snapshotUploadFailed, res.message);
      return;
    }
    this.signals.emit('snapshotFile', { fileName: key });
    this.firstFileUploaded();
  }

  /** The per-user playlists (and MP4s once written), after whatever was recorded before a restart. */
  files(): RecordedFile[] {
    const out: RecordedFile[] = [...this.d.task.previousFiles];
    if (this.d.options.hls) {
      for (const t of this.tracks.values()) {
        if (t.hls.firstStartMs === undefined) continue;
        out.push({ fileName: t.hls.playlistKey, trackType: t.kind, uid: t.uid, mixedAllUser: false, isPlayable: true, sliceStartTime: t.hls.firstStartMs });
      }
    }
    return out;
  }

  private reportFiles(): void {
    this.d.report.files(this.files());
  }

  async update(change: RecorderUpdate): Promise<void> {
    if (change.storage) await this.d.upload.updateStorage(change.storage);
    if (change.lists) {
      this.subscription = applyLists(this.subscription, change.lists);
      this.reconcile();
    }
    if (change.onhold !== undefined) await this.setHold(change.onhold);
  }

  /**
   * Pause: every stream ends (its slicer writes the last slice), so resuming starts new streams and each playlist
   * gets `#EXT-X-DISCONTINUITY`; the MP4 concatenates slices and so leaves the held time out. Resume: the next
   * packets start the new streams (a video slicer asks for a keyframe when it starts).
   */
  private setHold(onhold: boolean): Promise<void> {
    this.holdChange = this.holdChange.then(async () => {
      if (this.ending) return;
      const at = this.d.clock.now();
      const event = this.hold.set(onhold, at);
      if (event === undefined) return;
      if (event === 'recorderOnHold') await Promise.all([...this.tracks.values()].map((t) => this.endStream(t)));
      this.signals.emit(event, { UtcMs: at });
    });
    return this.holdChange;
  }

  /** A fatal refusal (bad or expired token): error event, abnormal status, the session ends. */
  async fail(e: ChannelRefusal): Promise<void> {
    if (this.ending) return;
    const errorCode = e.code === 'token_expired' ? ERROR_CODE.tokenExpired : ERROR_CODE.tokenInvalid;
    this.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.fatal, errorCode, `${e.code}: ${e.reason}`);
    this.signals.status('exitedAbnormally');
    const r = await this.end('error');
    this.d.report.ended({ reason: 'error', uploadingStatus: r.uploadingStatus, recordedAnything: r.recordedAnything, message: e.code });
  }

  stop(): Promise<StopResult> {
    return this.end('stopped');
  }

  private end(reason: 'stopped' | 'idle' | 'error'): Promise<StopResult> {
    this.ending ??= this.finish(reason);
    return this.ending;
  }

  private async finish(reason: 'stopped' | 'idle' | 'error'): Promise<StopResult> {
    this.idle.dispose();
    this.progress.stop();
    this.unlisten?.();
    this.unlistenUploads?.();
    if (reason !== 'error') this.signals.status('recordingStopped');
    this.signals.emit('recorderLeave', { leaveCode: reason === 'idle' ? LEAVE_CODE.idle : LEAVE_CODE.stopped });
    await Promise.all([...this.tracks.values()].map((t) => this.endStream(t)));
    await this.links.close();
    await this.chain;
    const result = await finalizeRecording({
      tracks: [...this.tracks.values()],
      options: this.d.options,
      naming: this.naming,
      upload: this.d.upload,
      workDir: this.d.workDir,
      signals: this.signals,
      report: this.d.report,
      log: this.d.log,
      files: (outputs) => [...this.files(), ...outputs],
    });
    if (reason !== 'error') this.signals.status('componentsStopped');
    return result;
  }
}
