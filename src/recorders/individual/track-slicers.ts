/**
 * The individual session's pipeline stage (source → pipeline → sink): one TrackRecording per user and kind, each
 * fed to its current TrackPipeline (ffmpeg slicer), a new one after every break so the playlist gets a
 * discontinuity; the stream states 43/44 as streams begin and end (cleanly, quietly or by a slicer's crash). Closed
 * slices and snapshots go to the caller.
 */
import type { ChildProcess } from 'node:child_process';
import type { MediaKind } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { SLICE_SECONDS, TrackPipeline, type ClosedSlice, type LossMeter, type RtpTrackDescription, type SessionNaming, type Snapshot } from '../../media/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, STREAM_STATE } from '../../recording/index.ts';
import type { RecordingOutput } from '../common/output/index.ts';
import type { SessionSignals } from '../common/signals/index.ts';
import type { IndividualOptions } from './options.ts';
import { TrackRecording } from './track-recording.ts';

export interface TrackSlicersDeps {
  readonly options: Pick<IndividualOptions, 'streamMode' | 'snapshotSec'>;
  readonly workDir: string;
  readonly naming: SessionNaming;
  readonly output: RecordingOutput;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signals: SessionSignals;
  /** Slice length in seconds (tests); absent: the service's 15 s. */
  readonly sliceSeconds?: number | undefined;
  readonly requestKeyframe: (uid: string) => void;
  readonly onSlice: (t: TrackRecording, s: ClosedSlice) => void;
  readonly onSnapshot: (t: TrackRecording, s: Snapshot) => void;
  /** Fault injection (tests): each slicer's ffmpeg child as it is spawned. */
  readonly slicerLaunched?: ((track: { readonly uid: string; readonly kind: MediaKind }, child: ChildProcess) => void) | undefined;
  /** Loss repair totals for /metrics. */
  readonly lossMeter?: LossMeter | undefined;
}

/**
 * How long after each slice mark the keyframe for it is asked for: a keyframe that came just before the mark would
 * not cut (the segment muxer cuts at the first keyframe at or after it) and the slice would run to the next one.
 */
const KEYFRAME_AFTER_MARK_MS = 250;

export class TrackSlicers {
  readonly #tracks = new Map<string, TrackRecording>();

  constructor(private readonly d: TrackSlicersDeps) {}

  /** Every track recorded so far, in the order each began. */
  all(): TrackRecording[] {
    return [...this.#tracks.values()];
  }

  /** The tracks being sliced now. */
  slicing(): TrackRecording[] {
    return this.all().filter((t) => t.pipeline);
  }

  get(uid: string, kind: MediaKind): TrackRecording | undefined {
    return this.#tracks.get(`${uid}/${kind}`);
  }

  /** A packet of the user's track; the first after a break starts a new stream. */
  push(uid: string, kind: MediaKind, desc: RtpTrackDescription, packet: Buffer): void {
    let t = this.get(uid, kind);
    if (!t) {
      t = new TrackRecording(uid, kind, this.d.workDir, this.d.naming, this.d.output);
      this.#tracks.set(`${uid}/${kind}`, t);
    }
    if (!t.pipeline) this.#beginStream(t, desc);
    t.packets++;
    t.firstPacketMs ??= this.d.clock.now();
    t.pipeline?.push(packet);
  }

  #beginStream(t: TrackRecording, desc: RtpTrackDescription): void {
    const { d } = this;
    t.beginStream(desc.codec);
    const pipeline = new TrackPipeline(
      {
        track: desc,
        workDir: t.streamDir(),
        audioOutput: d.options.streamMode === 'original' ? 'copy' : 'transcode',
        snapshotIntervalSec: d.options.snapshotSec,
        ...(d.sliceSeconds !== undefined ? { sliceSeconds: d.sliceSeconds } : {}),
        // Slice times on the session's clock, as its other times are. On a ManualClock a quiet input is not
        // confirmed as quiet (the clock did not move), so it is reported as the failure path below.
        now: () => d.clock.now(),
        // The jitter buffer and loss repair in front of the slicer (docs/recording-individual.md, "Loss"): a video
        // loss it cannot repair asks the publisher for a keyframe through the user's subscription.
        repair: { requestKeyframe: t.kind === 'video' ? () => d.requestKeyframe(t.uid) : undefined, meter: d.lossMeter },
        ...(d.slicerLaunched ? { onLaunched: (child: ChildProcess) => d.slicerLaunched?.({ uid: t.uid, kind: t.kind }, child) } : {}),
      },
      {
        onSlice: (s) => d.onSlice(t, s),
        onSnapshot: (s) => d.onSnapshot(t, s),
        onFailure: (exit) => {
          d.log.warn({ uid: t.uid, kind: t.kind, code: exit.code, stderr: exit.stderrTail.slice(-300) }, 'slicer exited');
          d.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.medium, ERROR_CODE.slicerStopped, `${t.kind} slicer of uid ${t.uid} stopped`);
          if (t.pipeline !== pipeline) return;
          // The stream ended as on the clean paths (event 43/44, state 1); the next packet starts a new one.
          t.pipeline = undefined;
          d.signals.streamState(t.uid, t.kind, 1);
        },
        // No packet for ffmpeg's input timeout (publisher silent or muted, its link being replaced): the stream
        // ended cleanly with its last slice, which is no error; the user's track is reported as no longer received
        // (event 43/44, state 1) and the next packet starts a new stream after a discontinuity.
        onInputTimeout: ({ idleMs }) => {
          d.log.info({ uid: t.uid, kind: t.kind, idleMs }, 'slicer input ended after no packets');
          if (t.pipeline !== pipeline) return;
          t.pipeline = undefined;
          d.signals.streamState(t.uid, t.kind, STREAM_STATE.stopped);
        },
      },
    );
    t.pipeline = pipeline;
    if (pipeline.lossStats) t.loss.push(pipeline.lossStats);
    d.signals.streamState(t.uid, t.kind, STREAM_STATE.receiving);
    const startedAt = d.clock.now();
    void pipeline.start().then(
      () => {
        if (t.kind !== 'video') return;
        // A slicer that has its stream from a keyframe needs none of its own (TrackPipeline.startedAtKeyframe).
        if (!pipeline.startedAtKeyframe) d.requestKeyframe(t.uid);
        this.#keyframeAtMarks(t, pipeline, startedAt, 1);
      },
      (e: Error) => d.log.error({ err: e.message }, 'slicer did not start'),
    );
  }

  /**
   * A video slice closes at the first keyframe at or after each slice mark, and a publisher that makes keyframes
   * only when asked (Chromium, any libwebrtc sender) would otherwise run one slice on for minutes: the publisher is
   * asked for one just after each mark of the stream (its first packet, then every slice length), while this
   * pipeline slices it. A publisher with its own short GOP gets one keyframe more per slice.
   */
  #keyframeAtMarks(t: TrackRecording, pipeline: TrackPipeline, startedAt: number, mark: number): void {
    const { d } = this;
    const at = startedAt + mark * (d.sliceSeconds || SLICE_SECONDS) * 1000 + KEYFRAME_AFTER_MARK_MS;
    d.clock.setTimeout(() => {
      if (t.pipeline !== pipeline) return;
      d.requestKeyframe(t.uid);
      this.#keyframeAtMarks(t, pipeline, startedAt, mark + 1);
    }, Math.max(0, at - d.clock.now()));
  }

  /** Ends the track's stream (its slicer writes the last slice); resolves once that slice went through the output. */
  async endStream(t: TrackRecording): Promise<void> {
    const p = t.pipeline;
    if (!p) return;
    t.pipeline = undefined;
    await p.stop();
    this.d.signals.streamState(t.uid, t.kind, STREAM_STATE.stopped);
    await this.d.output.settled();
  }

  endUser(uid: string): Promise<unknown> {
    return Promise.all(this.all().filter((t) => t.uid === uid).map((t) => this.endStream(t)));
  }

  endAll(): Promise<unknown> {
    return Promise.all(this.all().map((t) => this.endStream(t)));
  }
}
