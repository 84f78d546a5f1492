/**
 * One mix-mode recording session, assembled from the shared recorder parts (recorders/common) and the live mix
 * pipeline (media/mix/live): follows the channel (planSubscriptions), links to each publisher over WHEP
 * (PublisherLinks), feeds every subscribed user's RTP to one MixPipeline, writes its slices into one HLS track
 * (`<sid>_<cname>.m3u8`), applies layouts and their images, and at the end writes the MP4s and waits for the
 * uploads (docs/recording-mix.md, "The session").
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import {
  mixMp4Name,
  mixPlaylistName,
  mixSliceName,
  userMp4,
  type ClosedSlice,
  type RtpTrackDescription,
  type SessionNaming,
} from '../../media/index.ts';
import type { MixLayoutSettings } from '../../media/mix/index.ts';
import { MixPipeline, type SenderReport } from '../../media/mix/live/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type {
  RecordedFile,
  RecorderReport,
  RecorderUpdate,
  RecordingTask,
  StopResult,
  TrackType,
} from '../../recording/index.ts';
import type { UpdateLayoutClientRequest } from '../../recording/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import type { ChannelRefusal, ChannelSource } from '../common/channel-source.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, WARN_CODE } from '../../recording/index.ts';
import type { RecorderSignals } from '../common/events.ts';
import { finishUploads } from '../common/finish-uploads.ts';
import { HlsTrackWriter } from '../common/hls-track.ts';
import { HoldSwitch } from '../common/hold-switch.ts';
import { signalSliceOutcome } from '../common/slice-signals.ts';
import type { PublisherLinks } from '../common/publisher-links.ts';
import { SessionCore } from '../common/session-core.ts';
import { wants } from '../common/subscription.ts';
import { ImageLoader } from './images.ts';
import { layoutSettings, mp4Groups, type MixOptions } from './options.ts';
import { MIX_TRACK_DIR, recoverMixRuns, type RecoveredMixRun } from './recovery.ts';

export interface MixSessionDeps {
  readonly task: RecordingTask;
  readonly options: MixOptions;
  readonly report: RecorderReport;
  readonly source: ChannelSource;
  readonly upload: UploadSession;
  readonly clock: Clock;
  readonly log: Logger;
  readonly workDir: string;
  /** `bak<n>_` generation after a restart. */
  readonly backupIndex: number | undefined;
  /** Who may be fetched for background images (the outbound guard's policy). */
  readonly policy: OutboundPolicy;
}

/** A URL without query or credentials, for events and logs. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

export class MixSession {
  private readonly naming: SessionNaming;
  private readonly links: PublisherLinks;
  private readonly pipeline: MixPipeline;
  private readonly hls: HlsTrackWriter;
  private readonly images: ImageLoader;
  private readonly core: SessionCore;
  private readonly signals: RecorderSignals;
  private readonly trackType: TrackType;
  /** Users in the mix (joined the pipeline), and the kinds whose stream has started per user. */
  private readonly members = new Map<string, Set<MediaKind>>();
  private readonly slices: ClosedSlice[] = [];
  /** Earlier runs of this session (before a restart or failover), recovered at start. */
  private recoveredRuns: readonly RecoveredMixRun[] = [];
  private layout: MixLayoutSettings;
  private chain: Promise<unknown> = Promise.resolve();
  private firstUploaded = false;
  private readonly hold: HoldSwitch;

  constructor(private readonly d: MixSessionDeps) {
    const o = d.options;
    this.core = new SessionCore(
      { ...d, profile: o.profile, maxIdleMs: o.maxIdleMs, subscription: o.subscription },
      {
        onPacket: (uid, kind, track, packet) => this.onPacket(uid, kind, track, packet),
        onSenderReport: (uid, kind, report) => this.onSenderReport(uid, kind, report),
        reconcile: () => this.reconcile(),
        finish: () => this.finish(),
      },
    );
    this.signals = this.core.signals;
    // Pause: the pipeline stops encoding and its encoder run closes the last slice, which is handed to the uploader
    // before event 1100; the next slice starts a new stream, so the playlist gets `#EXT-X-DISCONTINUITY` and the MP4
    // (a concatenation of the slices) leaves the held time out. Users, links and decoders stay. Resume: the next
    // composed frame starts a new encoder run (docs/recording-mix.md, "Pause and resume").
    this.hold = new HoldSwitch(d.task, d.clock, this.signals, {
      pause: async () => {
        await this.pipeline.hold();
        this.serial(async () => this.hls.beginStream());
        await this.chain;
      },
      resume: () => this.pipeline.resume(),
      ending: () => this.core.ending,
    });
    this.links = this.core.links;
    this.naming = { sid: d.task.sid, cname: d.task.cname, backupIndex: d.backupIndex };
    this.layout = o.layout;
    this.trackType = o.streams.audio && o.streams.video ? 'audio_and_video' : o.streams.video ? 'video' : 'audio';
    this.hls = new HlsTrackWriter({
      dir: join(d.workDir, MIX_TRACK_DIR),
      kind: o.streams.video ? 'video' : 'audio',
      upload: d.upload,
      playlistName: mixPlaylistName(this.naming),
      sliceName: (startMs, container) => mixSliceName(this.naming, startMs, container),
    });
    this.images = new ImageLoader({
      policy: d.policy,
      workDir: join(d.workDir, 'images'),
      canvas: o.canvas,
      onFailure: (url, reason) => {
        d.log.warn({ url: safeUrl(url), reason }, 'background image unusable');
        this.signals.warning(EVENT_MODULE.recorder, WARN_CODE.backgroundImageFailed, `background image ${safeUrl(url)}: ${reason}`);
      },
    });
    this.pipeline = new MixPipeline(
      {
        workDir: d.workDir,
        clock: d.clock,
        canvas: o.canvas,
        fps: o.fps,
        bitrateKbps: o.bitrateKbps,
        audioProfile: o.audioProfile,
        settings: o.layout,
        streams: o.streams,
        onhold: this.hold.onhold,
      },
      {
        onSlice: (s) => this.serial(() => this.sliceClosed(s)),
        onFailure: (exit) => {
          d.log.error({ code: exit.code, stderr: exit.stderrTail.slice(-300) }, 'mix encoder exited');
          this.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.major, ERROR_CODE.slicerStopped, 'mix encoder stopped');
        },
        onKeyframeNeeded: (uid) => this.links.requestKeyframe(uid),
        onSenderClockDistrusted: (uid, lagMs) =>
          d.log.warn({ uid, lagMs: Math.round(lagMs) }, 'sender clock too far behind: user placed by arrival time'),
      },
    );
  }

  /** Joins: checks the token, starts the mix, listens to the channel, subscribes to whoever publishes. Throws ChannelRefusal. */
  async start(): Promise<void> {
    await this.core.open();
    await mkdir(this.d.workDir, { recursive: true });
    this.pipeline.start();
    this.applyImages(this.layout);
    this.core.started();
    this.hold.announce();
    this.d.report.sliceStartTime(this.pipeline.originMs ?? this.d.clock.now());
    if (this.d.task.resumed) await this.recoverEarlierRuns();
    if (this.d.task.previousFiles.length > 0 || this.recoveredRuns.length > 0) this.d.report.files(this.files([]));
    this.reconcile();
  }

  /**
   * The earlier runs' slices that never reached the uploader go up under their names, their playlists get
   * `#EXT-X-ENDLIST`, and each playlist stays listed (also one the dead run never got to report).
   */
  private async recoverEarlierRuns(): Promise<void> {
    this.recoveredRuns = await recoverMixRuns({
      sessionDir: dirname(this.d.workDir),
      currentGeneration: basename(this.d.workDir),
      naming: { sid: this.d.task.sid, cname: this.d.task.cname },
      kind: this.d.options.streams.video ? 'video' : 'audio',
      upload: this.d.upload,
    });
    const recovered = this.recoveredRuns.map((r) => ({ playlist: r.track.playlistKey, slices: r.track.recovered }));
    if (recovered.length > 0) this.d.log.info({ recovered }, 'earlier runs recovered');
  }

  /** Subscriptions and the mix's members in line with the channel and the subscription lists. */
  private reconcile(): void {
    const plan = this.core.plan([]);
    if (!plan) return;
    const reconnecting = new Set(plan.connect.map((c) => c.uid));
    for (const uid of plan.drop) {
      void this.links.drop(uid);
      // A user whose kinds changed is dropped and linked again: they keep their place in the layout.
      if (!reconnecting.has(uid)) this.leave(uid);
    }
    for (const { uid, kinds } of plan.connect) {
      this.join(uid);
      this.links.connect(uid, kinds);
    }
  }

  private join(uid: string): void {
    if (this.members.has(uid)) return;
    this.members.set(uid, new Set());
    this.pipeline.join(uid);
  }

  private leave(uid: string): void {
    const kinds = this.members.get(uid);
    if (!kinds) return;
    this.members.delete(uid);
    this.pipeline.leave(uid);
    for (const kind of kinds) this.streamState(uid, kind, 1);
  }

  private onPacket(uid: string, kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void {
    if (this.core.ending || !wants(this.core.subscription, kind, uid)) return;
    const kinds = this.members.get(uid);
    if (!kinds) return;
    if (!kinds.has(kind)) {
      kinds.add(kind);
      this.streamState(uid, kind, 0);
    }
    this.pipeline.pushRtp(uid, kind, track, packet);
  }

  /** The publisher's clock for this stream: audio and video of every user go on one timeline (sender clocks). */
  private onSenderReport(uid: string, kind: MediaKind, report: SenderReport): void {
    if (this.core.ending || !wants(this.core.subscription, kind, uid) || !this.members.has(uid)) return;
    this.pipeline.pushSenderReport(uid, kind, report);
  }

  private streamState(uid: string, kind: MediaKind, state: 0 | 1): void {
    this.signals.emit(kind === 'audio' ? 'audioStreamState' : 'videoStreamState', { streamUid: uid, state, UtcMs: this.d.clock.now() });
  }

  /** Uploads happen in close order: a slice before the playlist that names it. */
  private serial(fn: () => Promise<void>): void {
    this.chain = this.chain.then(fn).catch((e: Error) => this.d.log.error({ err: e.message }, 'recording step failed'));
  }

  private async sliceClosed(s: ClosedSlice): Promise<void> {
    this.slices.push(s);
    const out = await this.hls.addSlice(s);
    if (!signalSliceOutcome(this.signals, s.startMs, out, { mixedAllUser: true, streamUid: '0', trackType: this.trackType })) return;
    if (out.firstPlaylist) this.signals.emit('fileInfos', { fileList: this.hls.playlistKey });
    if (out.playlistUploaded && !this.firstUploaded) {
      this.firstUploaded = true;
      this.signals.status('firstFileUploaded');
    }
    this.d.report.files(this.files([]));
  }

  /**
   * What earlier runs recorded (their reported files, and a recovered playlist they never reported), then this
   * run's playlist (once it names a slice), then the MP4s given.
   */
  private files(mp4s: readonly RecordedFile[]): RecordedFile[] {
    const out: RecordedFile[] = [...this.d.task.previousFiles];
    for (const { track } of this.recoveredRuns) {
      if (!out.some((f) => f.fileName === track.playlistKey)) out.push(this.recordedFile(track.playlistKey, track.firstStartMs));
    }
    if (this.hls.firstStartMs !== undefined) out.push(this.recordedFile(this.hls.playlistKey, this.hls.firstStartMs));
    return [...out, ...mp4s.filter((m) => !out.some((f) => f.fileName === m.fileName))];
  }

  private recordedFile(fileName: string, sliceStartTime: number): RecordedFile {
    return { fileName, trackType: this.trackType, uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime };
  }

  /** The layout at once; its images as soon as they are decoded (each URL fetched once per session). */
  private applyImages(settings: MixLayoutSettings): void {
    this.pipeline.setImages(this.images.loadedImagesOf(settings));
    void this.images.imagesOf(settings).then((images) => {
      if (this.layout === settings && !this.core.ending) this.pipeline.setImages(images);
    });
  }

  /** updateLayout: the whole layout is replaced (omitted fields take their defaults) from the next composed frame. */
  async updateLayout(req: UpdateLayoutClientRequest): Promise<void> {
    const settings = layoutSettings(req);
    this.layout = settings;
    this.pipeline.setLayout(settings);
    this.applyImages(settings);
  }

  async update(change: RecorderUpdate): Promise<void> {
    await this.core.update(change);
    if (change.onhold !== undefined) await this.hold.set(change.onhold);
  }

  /** A fatal refusal (bad or expired token): error event, abnormal status, the session ends. */
  fail(e: ChannelRefusal): Promise<void> {
    return this.core.fail(e);
  }

  stop(): Promise<StopResult> {
    return this.core.stop();
  }

  /** After the channel is let go: the last slice, the ended playlist, the MP4s, the wait for the uploads. */
  private async finish(): Promise<StopResult> {
    await this.links.close();
    for (const uid of [...this.members.keys()]) this.leave(uid);
    // The encoder closes its last slice before it exits; its upload is queued on the chain.
    await this.pipeline.stop();
    await this.chain;
    await this.hls.end();
    const mp4s: RecordedFile[] = [];
    if (this.d.options.mp4) {
      // Each earlier run's MP4s from its slices still on disk (under its names), then this run's.
      for (const run of this.recoveredRuns) {
        if (run.track.slices.length > 0) mp4s.push(...(await this.writeMp4s(run.naming, run.track.slices, join(this.d.workDir, 'mp4', `run-${run.naming.backupIndex ?? 'first'}`))));
      }
      if (this.hls.recorded) mp4s.push(...(await this.writeMp4s(this.naming, this.slices, join(this.d.workDir, 'mp4'))));
    }
    const files = this.files(mp4s);
    this.d.report.files(files);
    const uploadingStatus = await finishUploads(this.d.upload, this.signals, files);
    return { uploadingStatus, files, recordedAnything: this.hls.recorded || this.recoveredRuns.length > 0 };
  }

  /** `<sid>_<cname>_<n>.mp4` from the TS slices (copied, no re-encode), a new file at the size/duration limit. */
  private async writeMp4s(
    naming: SessionNaming,
    slices: readonly { readonly localPath: string; readonly startMs: number; readonly durationSec: number; readonly bytes: number }[],
    dir: string,
  ): Promise<RecordedFile[]> {
    await mkdir(dir, { recursive: true });
    const out: RecordedFile[] = [];
    const { audio, video } = this.d.options.streams;
    try {
      for (const [index, group] of mp4Groups(slices).entries()) {
        const name = mixMp4Name(naming, index);
        const local = join(dir, name);
        const files = group.map((s) => ({ path: s.localPath, startMs: s.startMs }));
        await userMp4({ video: video ? files : [], audio: audio ? files : [], videoCodec: video ? 'H264' : undefined, workDir: dir, output: local });
        const res = await this.d.upload.enqueue(local, this.d.upload.objectKey(name), { contentType: 'video/mp4' });
        if (!res.ok) {
          this.signals.error(EVENT_MODULE.uploader, ERROR_LEVEL.major, ERROR_CODE.uploadFailed, res.message);
          continue;
        }
        out.push(this.recordedFile(res.key, group[0]!.startMs));
      }
    } catch (e) {
      this.d.log.error({ err: (e as Error).message }, 'mix MP4 failed');
      this.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.medium, ERROR_CODE.postProcessFailed, 'MP4 writing failed');
    }
    return out;
  }
}
