/**
 * One mix-mode recording session, built from the recorder stages (recorders/common): the channel follower (WHEP
 * links, subscription plan, idle, hold) is the source; the MixComposite (composite.ts: the live MixPipeline, its
 * members, layout and images) is the pipeline; the recording output's one HLS track (`<sid>_<cname>.m3u8`) is the
 * sink, which at the end writes the MP4s and waits for the uploads (docs/recording-mix.md, "The session").
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import { mixPlaylistName, mixSliceName, type RtpTrackDescription, type SessionNaming } from '../../media/index.ts';
import { MIX_SAMPLE_RATE, type MixLayoutSettings, type PcmFrame } from '../../media/mix/index.ts';
import type { SenderReport } from '../../media/mix/live/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { StopResult, TrackType } from '../../recording/dispatch/index.ts';
import { ChannelFollower, FollowingSession, wants, type FollowingSessionDeps, type PublisherLinks } from '../common/follower/index.ts';
import { RecordingOutput, type OutputTrack } from '../common/output/index.ts';
import { SessionSignals } from '../common/signals/index.ts';
import { sessionSpeakerTimeline, type SpeakerTimeline } from '../common/speakers/index.ts';
import { mediaSecondsAt } from '../../media/speech/index.ts';
import { MixComposite } from './composite.ts';
import { MIX_MP4_SPLIT, type MixOptions } from './options.ts';
import { MIX_TRACK_DIR, recoverMixRuns } from './recovery.ts';

export interface MixSessionDeps extends FollowingSessionDeps<MixOptions> {
  /** `bak<n>_` generation after a restart. */
  readonly backupIndex: number | undefined;
  /** Who may be fetched for background images (the outbound guard's policy). */
  readonly policy: OutboundPolicy;
  /** Each simulcast publisher from its smallest layer that covers its region (`recording.mixFitLayers`). */
  readonly fitLayers: boolean;
  /** Slice length in seconds; undefined: the service's 15 s. */
  readonly sliceSeconds: number | undefined;
}

export class MixSession extends FollowingSession {
  private readonly naming: SessionNaming;
  private readonly signals: SessionSignals;
  protected readonly follower: ChannelFollower;
  private readonly links: PublisherLinks;
  private readonly composite: MixComposite;
  private readonly output: RecordingOutput;
  /** The composite's one HLS track. */
  private readonly out: OutputTrack;
  /** `recordingConfig.speakerTimeline`: who spoke when, from the audio the mix decodes. */
  private readonly speakers: SpeakerTimeline | undefined;

  constructor(private readonly d: MixSessionDeps) {
    super();
    const o = d.options;
    this.naming = { sid: d.task.sid, cname: d.task.cname, backupIndex: d.backupIndex };
    this.signals = new SessionSignals(d);
    this.follower = new ChannelFollower(
      { ...d, signals: this.signals, profile: o.profile, maxIdleMs: o.maxIdleMs, subscription: o.subscription },
      {
        onPacket: (uid, kind, track, packet) => this.onPacket(uid, kind, track, packet),
        onSenderReport: (uid, kind, report) => this.onSenderReport(uid, kind, report),
        reconcile: () => this.reconcile(),
        finish: () => this.finish(),
        // Pause: the encoder run closes the last slice, which is handed to the uploader before event 1100; the next
        // slice starts a new stream, so the playlist gets `#EXT-X-DISCONTINUITY` and the MP4 (a concatenation of
        // the slices) leaves the held time out. Users, links and decoders stay. Resume: the next composed frame
        // starts a new encoder run (docs/recording-mix.md, "Pause and resume").
        pause: async () => {
          await this.composite.hold();
          this.output.serial(() => this.out.writer.beginStream());
          await this.output.settled();
        },
        resume: () => this.composite.resume(),
      },
    );
    this.links = this.follower.links;
    const trackType: TrackType = o.streams.audio && o.streams.video ? 'audio_and_video' : o.streams.video ? 'video' : 'audio';
    this.output = new RecordingOutput({ previousFiles: d.task.previousFiles, upload: d.upload, report: d.report, signals: this.signals, log: d.log, hls: true });
    this.out = this.output.track(
      {
        dir: join(d.workDir, MIX_TRACK_DIR),
        kind: o.streams.video ? 'video' : 'audio',
        playlistName: mixPlaylistName(this.naming),
        sliceName: (startMs, container) => mixSliceName(this.naming, startMs, container),
      },
      { trackType, uid: '0', mixedAllUser: true },
      { streamUid: '0', trackType },
    );
    // Intervals and cues in the mix playlist's media time.
    const playlist = () => ({ fileName: this.out.writer.playlistKey, uid: undefined, slices: this.out.closed });
    this.speakers = o.speakerTimeline
      ? sessionSpeakerTimeline({
          naming: this.naming,
          sessionDir: d.workDir,
          upload: d.upload,
          signals: this.signals,
          log: d.log,
          playlists: () => [playlist()],
          cueSecondsAt: (utcMs) => mediaSecondsAt(utcMs, playlist().slices) ?? 0,
          list: (files) => {
        this.output.addOutputs(files);
        this.output.reportFiles();
      },
          mixedAllUser: true,
          sampleRate: MIX_SAMPLE_RATE,
          transcription: o.transcription,
          policy: d.policy,
        })
      : undefined;
    const speakers = this.speakers;
    this.composite = new MixComposite({
      ...d,
      signals: this.signals,
      onhold: this.follower.onhold,
      onSlice: (s) =>
        this.output.serial(async () => {
          await this.output.sliceClosed(this.out, s);
          await speakers?.sliceClosed(d.clock.now());
        }),
      ...(speakers ? { onAudio: (uid: string, at: number, pcm: PcmFrame) => speakers.pcm(uid, at, pcm) } : {}),
      requestKeyframe: (uid) => this.links.requestKeyframe(uid),
      // A simulcast publisher drawn small is taken from its smallest layer that covers its region (in-process taps).
      drawnAt: (uid, size) => {
        if (d.fitLayers) this.links.fitVideo(uid, size);
      },
      ending: () => this.follower.ending,
    });
  }

  /** Joins: checks the token, starts the mix, listens to the channel, subscribes to whoever publishes. Throws ChannelRefusal. */
  async start(): Promise<void> {
    await this.follower.open();
    await mkdir(this.d.workDir, { recursive: true });
    this.composite.start();
    this.follower.started();
    this.d.report.sliceStartTime(this.composite.originMs ?? this.d.clock.now());
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
      if (!reconnecting.has(uid)) {
        this.composite.leave(uid);
        this.speakers?.userEnded(uid);
      }
    }
    for (const { uid, kinds } of plan.connect) {
      this.composite.join(uid);
      this.links.connect(uid, kinds);
    }
  }

  private onPacket(uid: string, kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void {
    if (this.follower.ending || !wants(this.follower.subscription, kind, uid)) return;
    this.composite.pushRtp(uid, kind, track, packet);
  }

  private onSenderReport(uid: string, kind: MediaKind, report: SenderReport): void {
    if (this.follower.ending || !wants(this.follower.subscription, kind, uid)) return;
    this.composite.pushSenderReport(uid, kind, report);
  }

  /** updateLayout: the whole layout is replaced (omitted fields took their defaults) from the next composed frame. */
  async updateLayout(layout: MixLayoutSettings): Promise<void> {
    this.composite.setLayout(layout);
  }

  /** After the channel is let go: the last slice, the ended playlist, the MP4s, the wait for the uploads. */
  private async finish(): Promise<StopResult> {
    await this.links.close();
    // The encoder closes its last slice before it exits; its upload is queued on the output's chain.
    await this.composite.stop();
    await this.output.settled();
    await this.speakers?.finish();
    await this.output.endPlaylists();
    if (this.d.options.mp4) await this.output.writeMp4s(this.out, this.naming, { dir: join(this.d.workDir, 'mp4'), split: MIX_MP4_SPLIT, streams: this.d.options.streams });
    const files = this.output.reportFiles();
    const uploadingStatus = await this.output.awaitUploads(files);
    return { uploadingStatus, files, recordedAnything: this.output.recorded || this.output.recoveredAny };
  }
}
