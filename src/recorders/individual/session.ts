/**
 * One individual-mode recording session, built from the recorder stages (recorders/common): the channel follower
 * (links to each publisher over WHEP, the subscription plan, maxIdleTime on the injected clock) is the source; each
 * user's track is sliced by a TrackPipeline (the pipeline) into its HLS track of the recording output (the sink);
 * the session signals report statuses and events. finalize.ts does what follows the live part.
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ChannelEvent, MediaKind } from '../../channel/index.ts';
import { mergedPlaylistName, playlistName, renderMergedIndex, SendClock, snapshotName, type RtpTrackDescription, type SessionNaming, type Snapshot } from '../../media/index.ts';
import type { StopResult } from '../../recording/dispatch/index.ts';
import { EVENT_MODULE, WARN_CODE } from '../../recording/index.ts';
import { ChannelFollower, FollowingSession, wants, type FollowingSessionDeps, type PublisherLinks } from '../common/follower/index.ts';
import { PLAYLIST_CONTENT_TYPE, RecordingOutput } from '../common/output/index.ts';
import { SessionSignals } from '../common/signals/index.ts';
import { sessionSpeakerTimeline, SpeakerLevels, type SpeakerTimeline } from '../common/speakers/index.ts';
import { MIX_SAMPLE_RATE } from '../../media/mix/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import { finalizeRecording } from './finalize.ts';
import type { IndividualOptions } from './options.ts';
import { recoverLeftovers } from './recovery.ts';
import { logTrackSummary, type TrackRecording } from './track-recording.ts';
import { TrackSlicers, type TrackSlicersDeps } from './track-slicers.ts';

export interface SessionDeps extends FollowingSessionDeps<IndividualOptions> {
  /** Slice length in seconds (tests); absent: the service's 15 s. */
  readonly sliceSeconds?: number;
  /** Fault injection (tests): each slicer's ffmpeg child as it is spawned. */
  readonly slicerLaunched?: TrackSlicersDeps['slicerLaunched'];
  /** Loss repair totals for /metrics. */
  readonly lossMeter?: TrackSlicersDeps['lossMeter'];
  /** The outbound guard's policy (the transcription hook's URL). */
  readonly policy: OutboundPolicy;
}

export class IndividualSession extends FollowingSession {
  private readonly naming: SessionNaming;
  private readonly tracks: TrackSlicers;
  protected readonly follower: ChannelFollower;
  private readonly links: PublisherLinks;
  private readonly signals: SessionSignals;
  private readonly output: RecordingOutput;
  /** Each linked track's sending clock, by `uid/kind`: what the hold gate dates packets by. */
  private readonly sendClocks = new Map<string, SendClock>();
  /** When start() began (injected clock), for the stop summary. */
  private startedMs: number | undefined;
  /** `recordingConfig.speakerTimeline`: the timeline and the decoders that feed it. */
  private readonly speakers: { readonly timeline: SpeakerTimeline; readonly levels: SpeakerLevels } | undefined;

  constructor(private readonly d: SessionDeps) {
    super();
    this.naming = { sid: d.task.sid, cname: d.task.cname, backupIndex: d.options.backupIndex };
    this.signals = new SessionSignals(d);
    this.follower = new ChannelFollower(
      { ...d, signals: this.signals, profile: d.options.profile, maxIdleMs: d.options.maxIdleMs, subscription: d.options.subscription },
      {
        onPacket: (uid, kind, track, packet) => this.onPacket(uid, kind, track, packet),
        // The speaker timeline dates each user's audio on its sender's clock, as the mix does.
        onSenderReport: (uid, kind, report) => {
          if (kind === 'audio') this.speakers?.levels.senderReport(uid, report, { clockRate: MIX_SAMPLE_RATE });
        },
        onChannelEvent: (e) => this.onChannelEvent(e),
        reconcile: () => this.reconcile(),
        finish: () => this.finish(),
        // Pause: every stream ends (its slicer writes the last slice), so resuming starts new streams and each
        // playlist gets `#EXT-X-DISCONTINUITY`; the MP4 concatenates slices and so leaves the held time out. Resume:
        // the next packets start the new streams (a video slicer asks for a keyframe when it starts).
        pause: async () => {
          await this.tracks.endAll();
        },
        resume: () => undefined,
      },
    );
    this.links = this.follower.links;
    this.output = new RecordingOutput({ previousFiles: d.task.previousFiles, upload: d.upload, report: d.report, signals: this.signals, log: d.log, hls: d.options.hls });
    this.tracks = new TrackSlicers({
      ...d,
      naming: this.naming,
      output: this.output,
      signals: this.signals,
      requestKeyframe: (uid) => this.links.requestKeyframe(uid),
      onSlice: (t, s) =>
        this.output.serial(async () => {
          await this.output.sliceClosed(t.out, s, () => this.playlistUploaded(t));
          await this.speakers?.timeline.sliceClosed(d.clock.now());
        }),
      onSnapshot: (t, s) => this.output.serial(() => this.snapshotTaken(t, s)),
    });
    this.speakers = d.options.speakerTimeline ? this.speakerTimeline() : undefined;
  }

  /** Each user's levels (its packets' RFC 6464 levels, or its decoded audio); intervals in each of the user's playlists, cues from the first slice. */
  private speakerTimeline(): NonNullable<IndividualSession['speakers']> {
    const timeline = sessionSpeakerTimeline({
      naming: this.naming,
      sessionDir: this.d.workDir,
      upload: this.d.upload,
      signals: this.signals,
      log: this.d.log,
      playlists: () => this.tracks.all().map((t) => ({ fileName: t.hls.playlistKey, uid: t.uid, slices: t.out.closed })),
      list: (files) => {
        this.output.addOutputs(files);
        this.output.reportFiles();
      },
      mixedAllUser: false,
      sampleRate: MIX_SAMPLE_RATE,
      transcription: this.d.options.transcription,
      policy: this.d.policy,
    });
    const levels = new SpeakerLevels(this.d.clock, {
      onLevel: (uid, frame) => timeline.level(uid, frame),
      onPcm: (uid, at, pcm, levelsInPackets) => timeline.pcm(uid, at, pcm, levelsInPackets),
      wantsSound: this.d.options.transcription !== undefined,
    });
    return { timeline, levels };
  }

  /** Joins: checks the token, listens to the channel, subscribes to whoever publishes. Throws ChannelRefusal. */
  async start(): Promise<void> {
    this.startedMs = this.d.clock.now();
    await this.follower.open();
    this.follower.started();
    this.d.report.sliceStartTime(this.d.clock.now());
    if (this.d.task.resumed) {
      const recovered = await recoverLeftovers({
        sessionDir: dirname(this.d.workDir),
        currentGeneration: basename(this.d.workDir),
        naming: { sid: this.d.task.sid, cname: this.d.task.cname },
        upload: this.d.upload,
        playlistKey: (n, uid, kind) => playlistName(n, uid, kind),
      });
      if (recovered.length > 0) this.d.log.info({ recovered }, 'slices of the previous run recovered');
      // Listed even when the dead run never reported them.
      this.output.listRecovered(
        recovered.map((r) => ({ fileName: r.playlistKey, trackType: r.kind, uid: r.uid, mixedAllUser: false, isPlayable: true, sliceStartTime: r.firstStartMs })),
      );
    }
    this.output.reportEarlierFiles();
    this.reconcile();
  }

  private onChannelEvent(e: ChannelEvent): void {
    if (e.kind === 'leave' || e.kind === 'unpublish') {
      // The user's tracks ended: close their streams now so the next ones start a discontinuity.
      void this.dropUser(String(e.uid));
    }
  }

  /** Brings subscriptions in line with the channel membership and the subscription lists. */
  private reconcile(): void {
    const plan = this.follower.plan(this.tracks.slicing());
    if (!plan) return;
    for (const uid of plan.drop) void this.dropUser(uid);
    for (const { uid, kinds } of plan.connect) this.links.connect(uid, kinds);
    // Kinds switched off by update end their current stream.
    for (const { uid, kind } of plan.endStreams) {
      const t = this.tracks.get(uid, kind);
      if (t) void this.tracks.endStream(t);
    }
  }

  private async dropUser(uid: string): Promise<void> {
    for (const kind of ['audio', 'video'] as const) this.sendClocks.delete(`${uid}/${kind}`);
    await this.links.drop(uid);
    await this.tracks.endUser(uid);
    if (this.speakers) {
      await this.speakers.levels.end(uid);
      this.speakers.timeline.userEnded(uid);
    }
  }

  private onPacket(uid: string, kind: MediaKind, desc: RtpTrackDescription, packet: Buffer): void {
    if (this.follower.ending) return;
    // On hold nothing reaches a slicer; the links stay up, so resuming needs only a keyframe. Media sent during the
    // hold stays out when it arrives after the resume (held back by a stall of this process or a retransmission).
    const key = `${uid}/${kind}`;
    let clock = this.sendClocks.get(key);
    if (!clock) this.sendClocks.set(key, (clock = new SendClock(desc.clockRate)));
    if (this.follower.heldAt(clock.sentAtMs(packet, this.d.clock.now()))) return;
    if (!wants(this.follower.subscription, kind, uid)) return;
    this.tracks.push(uid, kind, desc, packet);
    if (kind === 'audio') this.speakers?.levels.push(uid, desc, packet);
  }

  /** Standard stream mode: the user's merged index follows each playlist of theirs. */
  private async playlistUploaded(t: TrackRecording): Promise<void> {
    if (this.d.options.streamMode === 'standard') await this.uploadMergedIndex(t.uid);
  }

  private async uploadMergedIndex(uid: string): Promise<void> {
    const a = this.tracks.get(uid, 'audio');
    const v = this.tracks.get(uid, 'video');
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
    this.output.fileUploaded();
  }

  private async finish(): Promise<StopResult> {
    const linked = [...this.links.kinds().keys()];
    const publishing = this.d.source.snapshot().participants.filter((p) => p.tracks.length > 0).map((p) => p.uid);
    await this.tracks.endAll();
    await this.links.close();
    await this.speakers?.levels.endAll();
    await this.output.settled();
    await this.speakers?.timeline.finish();
    const tracks = this.tracks.all();
    logTrackSummary(this.d.log, tracks, { startedMs: this.startedMs, nowMs: this.d.clock.now() }, { linked, publishing });
    const { options, upload, workDir, log } = this.d;
    return finalizeRecording({ tracks, output: this.output, options, naming: this.naming, upload, workDir, signals: this.signals, log });
  }
}
