/**
 * One mix-mode recording session, built from the recorder stages (recorders/common) and the live mix pipeline
 * (media/mix/live): the channel follower (WHEP links, subscription plan, idle) is the source; every subscribed
 * user's RTP goes into one MixPipeline, whose slices go into the recording output's one HLS track
 * (`<sid>_<cname>.m3u8`); layouts and their images are applied as they change; at the end the output writes the
 * MP4s and waits for the uploads (docs/recording-mix.md, "The session").
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { mixPlaylistName, mixSliceName, type RtpTrackDescription, type SessionNaming } from '../../media/index.ts';
import type { MixLayoutSettings } from '../../media/mix/index.ts';
import { MixPipeline, type SenderReport } from '../../media/mix/live/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { RecorderReport, RecorderUpdate, RecordingTask, StopResult, TrackType } from '../../recording/dispatch/index.ts';
import type { UpdateLayoutClientRequest } from '../../recording/validation/types.ts';
import type { UploadSession } from '../../storage/index.ts';
import type { ChannelRefusal, ChannelSource } from '../common/follower/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, WARN_CODE } from '../common/events.ts';
import { HoldSwitch } from '../common/hold/index.ts';
import { RecordingOutput, type OutputTrack } from '../common/output/index.ts';
import type { PublisherLinks } from '../common/follower/index.ts';
import { ChannelFollower } from '../common/follower/index.ts';
import { SessionSignals } from '../common/signals/index.ts';
import { wants } from '../common/follower/index.ts';
import { ImageLoader, safeUrl } from './images.ts';
import { layoutSettings, MIX_MP4_SPLIT, type MixOptions } from './options.ts';
import { MIX_TRACK_DIR, recoverMixRuns } from './recovery.ts';

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

export class MixSession {
  private readonly naming: SessionNaming;
  private readonly links: PublisherLinks;
  private readonly pipeline: MixPipeline;
  private readonly output: RecordingOutput;
  /** The composite's one HLS track. */
  private readonly out: OutputTrack;
  private readonly images: ImageLoader;
  private readonly follower: ChannelFollower;
  private readonly signals: SessionSignals;
  private readonly trackType: TrackType;
  /** Users in the mix (joined the pipeline), and the kinds whose stream has started per user. */
  private readonly members = new Map<string, Set<MediaKind>>();
  private layout: MixLayoutSettings;
  private readonly hold: HoldSwitch;

  constructor(private readonly d: MixSessionDeps) {
    const o = d.options;
    this.signals = new SessionSignals(d);
    this.follower = new ChannelFollower(
      { ...d, signals: this.signals, profile: o.profile, maxIdleMs: o.maxIdleMs, subscription: o.subscription },
      {
        onPacket: (uid, kind, track, packet) => this.onPacket(uid, kind, track, packet),
        onSenderReport: (uid, kind, report) => this.onSenderReport(uid, kind, report),
        reconcile: () => this.reconcile(),
        finish: () => this.finish(),
      },
    );
    // Pause: the pipeline stops encoding and its encoder run closes the last slice, which is handed to the uploader
    // before event 1100; the next slice starts a new stream, so the playlist gets `#EXT-X-DISCONTINUITY` and the MP4
    // (a concatenation of the slices) leaves the held time out. Users, links and decoders stay. Resume: the next
    // composed frame starts a new encoder run (docs/recording-mix.md, "Pause and resume").
    this.hold = new HoldSwitch(d.task, d.clock, this.signals, {
      pause: async () => {
        await this.pipeline.hold();
        this.output.serial(() => this.out.writer.beginStream());
        await this.output.settled();
      },
      resume: () => this.pipeline.resume(),
      ending: () => this.follower.ending,
    });
    this.links = this.follower.links;
    this.naming = { sid: d.task.sid, cname: d.task.cname, backupIndex: d.backupIndex };
    this.layout = o.layout;
    this.trackType = o.streams.audio && o.streams.video ? 'audio_and_video' : o.streams.video ? 'video' : 'audio';
    this.output = new RecordingOutput({ previousFiles: d.task.previousFiles, upload: d.upload, report: d.report, signals: this.signals, log: d.log, hls: true });
    this.out = this.output.track(
      {
        dir: join(d.workDir, MIX_TRACK_DIR),
        kind: o.streams.video ? 'video' : 'audio',
        playlistName: mixPlaylistName(this.naming),
        sliceName: (startMs, container) => mixSliceName(this.naming, startMs, container),
      },
      { trackType: this.trackType, uid: '0', mixedAllUser: true },
      { streamUid: '0', trackType: this.trackType },
    );
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
        onSlice: (s) => this.output.serial(() => this.output.sliceClosed(this.out, s)),
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
    await this.follower.open();
    await mkdir(this.d.workDir, { recursive: true });
    this.pipeline.start();
    this.applyImages(this.layout);
    this.follower.started();
    this.hold.announce();
    this.d.report.sliceStartTime(this.pipeline.originMs ?? this.d.clock.now());
    if (this.d.task.resumed) await this.recoverEarlierRuns();
    this.output.reportEarlierFiles();
    this.reconcile();
  }

  /**
   * The earlier runs' slices that never reached the uploader go up under their names, their playlists get
   * `#EXT-X-ENDLIST`, and each playlist stays listed (also one the dead run never got to report).
   */
  private async recoverEarlierRuns(): Promise<void> {
    const runs = await recoverMixRuns({
      sessionDir: dirname(this.d.workDir),
      currentGeneration: basename(this.d.workDir),
      naming: { sid: this.d.task.sid, cname: this.d.task.cname },
      kind: this.d.options.streams.video ? 'video' : 'audio',
      upload: this.d.upload,
    });
    const recovered = runs.map((r) => ({ playlist: r.track.playlistKey, slices: r.track.recovered }));
    if (recovered.length > 0) this.d.log.info({ recovered }, 'earlier runs recovered');
    this.output.recoveredRuns(this.out, runs);
  }

  /** Subscriptions and the mix's members in line with the channel and the subscription lists. */
  private reconcile(): void {
    const plan = this.follower.plan([]);
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
    for (const kind of kinds) this.signals.streamState(uid, kind, 1);
  }

  private onPacket(uid: string, kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void {
    if (this.follower.ending || !wants(this.follower.subscription, kind, uid)) return;
    const kinds = this.members.get(uid);
    if (!kinds) return;
    if (!kinds.has(kind)) {
      kinds.add(kind);
      this.signals.streamState(uid, kind, 0);
    }
    this.pipeline.pushRtp(uid, kind, track, packet);
  }

  /** The publisher's clock for this stream: audio and video of every user go on one timeline (sender clocks). */
  private onSenderReport(uid: string, kind: MediaKind, report: SenderReport): void {
    if (this.follower.ending || !wants(this.follower.subscription, kind, uid) || !this.members.has(uid)) return;
    this.pipeline.pushSenderReport(uid, kind, report);
  }

  /** The layout at once; its images as soon as they are decoded (each URL fetched once per session). */
  private applyImages(settings: MixLayoutSettings): void {
    this.pipeline.setImages(this.images.loadedImagesOf(settings));
    void this.images.imagesOf(settings).then((images) => {
      if (this.layout === settings && !this.follower.ending) this.pipeline.setImages(images);
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
    await this.follower.update(change);
    if (change.onhold !== undefined) await this.hold.set(change.onhold);
  }

  /** A fatal refusal (bad or expired token): error event, abnormal status, the session ends. */
  fail(e: ChannelRefusal): Promise<void> {
    return this.follower.fail(e);
  }

  stop(): Promise<StopResult> {
    return this.follower.stop();
  }

  /** After the channel is let go: the last slice, the ended playlist, the MP4s, the wait for the uploads. */
  private async finish(): Promise<StopResult> {
    await this.links.close();
    for (const uid of [...this.members.keys()]) this.leave(uid);
    // The encoder closes its last slice before it exits; its upload is queued on the chain.
    await this.pipeline.stop();
    await this.output.endPlaylists();
    if (this.d.options.mp4) await this.output.writeMp4s(this.out, this.naming, { dir: join(this.d.workDir, 'mp4'), split: MIX_MP4_SPLIT, streams: this.d.options.streams });
    const files = this.output.reportFiles();
    const uploadingStatus = await this.output.awaitUploads(files);
    return { uploadingStatus, files, recordedAnything: this.output.recorded || this.output.recoveredAny };
  }
}
