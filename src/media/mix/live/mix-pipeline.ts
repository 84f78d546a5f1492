/**
 * The live mix (docs/recording-mix.md, "Live pipeline"): per user a video decoder (latest frame only) and an
 * audio decoder (PCM on the sender's clock), one MixEngine that composes and mixes, one FrameClock on the
 * injected Clock that asks for exactly fps frames per second, and one MixEncoder that writes the slices. The
 * recorder session feeds it what its channel subscriptions give (RTP packets as received with their track
 * description, RTCP sender reports), tells it who joins and leaves, and changes the layout; it gets closed
 * slices back. Inputs never hold up the clock: a user whose decoder is silent is simply not updated.
 *
 * Pause and resume (`hold`/`resume`): while held the frame clock and the decoders keep running and the engine
 * keeps its state (frames are composed without pixels, so the roster, the 3.5 s rule and the audio timeline move
 * on), but nothing goes to an encoder. A hold ends the current encoder run (ffmpeg closes its last slice and
 * exits); the first frame after a resume starts a new run whose timestamps start at 0, with that frame's time as
 * its origin. Each run reports its slices only after the previous run's last one.
 */
import { join } from 'node:path';
import type { Clock } from '../../../clock/index.ts';
import type { FfmpegExit } from '../../ffmpeg.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import type { ClosedSlice } from '../../segment-list.ts';
import type { MixAudioProfile } from '../audio-profile.ts';
import type { PcmFrame } from '../audio-mixer.ts';
import type { MixLayoutSettings } from '../layout-settings.ts';
import type { CanvasSize, MixRegion } from '../region.ts';
import { EMPTY_ROSTER, type MixRoster } from '../roster.ts';
import type { ScalingMethod } from '../scaling-plan.ts';
import { UserAudioDecoder } from './audio-decoder.ts';
import { FrameClock } from './frame-clock.ts';
import { MixEncoder } from './mix-encoder.ts';
import { DEFAULT_MIX_LATENCY_MS, MixEngine, type MixImages, type MixOutputFrame } from './mix-engine.ts';
import { RepairedInputs } from './repaired-input.ts';
import { LateSenderClock, SenderClock, type SenderReport } from './sender-clock.ts';
import { type DrawnRegion, drawnRegionOf, UserVideoDecoder } from './video-decoder.ts';
import type { VideoSize } from './video-size.ts';

export type MixMediaKind = 'audio' | 'video';

/** Subdirectory of the pipeline's work dir where the encoder runs write their slices, one `run<n>/` folder per
 * encoder run (a hold ends a run); restart recovery reads them. */
export const MIX_SLICE_SUBDIR = 'mix';

export interface MixPipelineOptions {
  readonly workDir: string;
  readonly clock: Clock;
  readonly canvas: CanvasSize;
  readonly fps: number;
  readonly bitrateKbps: number;
  readonly audioProfile: MixAudioProfile;
  readonly settings: MixLayoutSettings;
  /** streamTypes: 0 audio only, 1 video only, 2 both (default). */
  readonly streams?: { readonly audio: boolean; readonly video: boolean };
  readonly sliceSeconds?: number;
  /** The jitter window audio and video are mixed behind real time (MixEngine's latencyMs). */
  readonly latencyMs?: number;
  /** Largest decoded frame per user (default: the canvas). */
  readonly decodeBound?: VideoSize;
  readonly scaling?: ScalingMethod;
  /** Start on hold: nothing is encoded until `resume()`. */
  readonly onhold?: boolean;
}

export interface MixPipelineEvents {
  onSlice(slice: ClosedSlice): void;
  /** The encoder ended on its own: the recording is broken. */
  onFailure?(exit: FfmpegExit): void;
  /** A user's video has no keyframe to start from: send them an RTCP PLI. */
  onKeyframeNeeded?(uid: string): void;
  /** Every composed frame, after it went to the encoder (tests, diagnostics). */
  onFrame?(frame: MixOutputFrame): void;
  /**
   * A user's sender reports put its clock so far behind ours that its audio would arrive too late for the mix
   * (`lagMs` behind): from now on both of its streams are placed by their first packets' arrival.
   */
  onSenderClockDistrusted?(uid: string, lagMs: number): void;
  /** Each composed frame: the size each user is drawn at (its largest region), undefined when not drawn. */
  onDrawn?(uid: string, region: DrawnRegion | undefined): void;
  /** Each user's decoded audio on its sender's clock, as it goes into the mix (the speaker timeline). */
  onAudio?(uid: string, senderTimeMs: number, pcm: PcmFrame): void;
}

/** One encoder process, from the first frame after a start or resume to the next hold or the stop. */
interface EncoderRun {
  readonly encoder: MixEncoder;
  /** Its slices, reported in order after every earlier run's. */
  reported: Promise<void>;
}

interface UserMedia {
  video?: UserVideoDecoder;
  audio?: UserAudioDecoder;
  readonly audioClock: SenderClock;
  readonly videoClock: SenderClock;
  /** The jitter buffer and loss repair in front of both decoders. */
  readonly repair: RepairedInputs;
}

export class MixPipeline {
  #engine: MixEngine | undefined;
  #run: EncoderRun | undefined;
  /** Resolves once every ended run has exited and reported its last slice. */
  #ended: Promise<unknown> = Promise.resolve();
  #runs = 0;
  #held: boolean;
  #frameClock: FrameClock | undefined;
  readonly #users = new Map<string, UserMedia>();
  readonly #streams: { readonly audio: boolean; readonly video: boolean };
  #settings: MixLayoutSettings;
  #images: MixImages | undefined;
  #stopped = false;
  readonly #observers = new Set<(frame: MixOutputFrame) => void>();
  /** The last composed frame's regions: each user's video is decoded at the size it is drawn at there. */
  #regions: readonly MixRegion[] = [];

  constructor(
    private readonly options: MixPipelineOptions,
    private readonly events: MixPipelineEvents,
  ) {
    this.#streams = options.streams ?? { audio: true, video: true };
    if (!this.#streams.audio && !this.#streams.video) throw new RangeError('a mix needs audio, video or both');
    this.#settings = options.settings;
    this.#held = options.onhold === true;
  }

  get onhold(): boolean {
    return this.#held;
  }

  /** Encoder processes started so far (one per start or resume that was followed by a frame). */
  get encoderRuns(): number {
    return this.#runs;
  }

  /** Wall-clock time of output frame 0 (the recording's start), once started. */
  get originMs(): number | undefined {
    return this.#engine?.originMs;
  }

  /** Who is in and what the compositor knows of their video (join order). */
  get roster(): MixRoster {
    return this.#engine?.roster ?? EMPTY_ROSTER;
  }

  /** Frames the users' video decoders have written so far (diagnostics, benchmarks). */
  get decodedVideoFrames(): number {
    let n = 0;
    for (const m of this.#users.values()) n += m.video?.frames ?? 0;
    return n;
  }

  /** Output frames composed so far. */
  get framesWritten(): number {
    return this.#frameClock?.emitted ?? 0;
  }

  /** Bytes handed to the encoder and not yet taken by it: growing means the encoder is slower than real time. */
  get encoderBacklogBytes(): number {
    return this.#run?.encoder.backlogBytes ?? 0;
  }

  /**
   * Diagnostics (benchmarks): `listener` sees every composed frame right after it went to the encoder pipe, like
   * the `onFrame` event. Returns the function that removes it.
   */
  observeFrames(listener: (frame: MixOutputFrame) => void): () => void {
    this.#observers.add(listener);
    return () => this.#observers.delete(listener);
  }

  /** Starts the frame clock (and with it, unless on hold, the encoder); the recording's time 0 is now. */
  start(): void {
    if (this.#engine) return;
    const o = this.options;
    const originMs = o.clock.now();
    const engine = new MixEngine({
      canvas: o.canvas,
      fps: o.fps,
      audioProfile: o.audioProfile,
      originMs,
      settings: this.#settings,
      ...(o.latencyMs !== undefined ? { latencyMs: o.latencyMs } : {}),
      ...(o.scaling ? { scaling: o.scaling } : {}),
      onFrameReleased: (uid, frame) => this.#users.get(uid)?.video?.recycle(frame),
    });
    if (this.#images) engine.setImages(this.#images);
    for (const uid of this.#users.keys()) engine.join(uid);
    this.#engine = engine;
    this.#frameClock = new FrameClock(o.clock, originMs, o.fps, (index) => this.#emit(index));
    this.#frameClock.start();
  }

  join(uid: string): void {
    if (this.#stopped || this.#users.has(uid)) return;
    const repair = new RepairedInputs(this.options.latencyMs ?? DEFAULT_MIX_LATENCY_MS, () => this.events.onKeyframeNeeded?.(uid));
    this.#users.set(uid, { audioClock: new SenderClock(48_000), videoClock: new SenderClock(90_000), repair });
    this.#engine?.join(uid);
  }

  /** The user left the channel: decoders stop, the region shows the background colour, then the layout reflows. */
  leave(uid: string): void {
    const media = this.#users.get(uid);
    if (!media) return;
    this.#users.delete(uid);
    media.repair.close();
    void media.video?.stop();
    void media.audio?.stop();
    this.#engine?.leave(uid, this.options.clock.now());
  }

  /** One RTP packet of a user's track as received, with the track's negotiated description. */
  pushRtp(uid: string, kind: MixMediaKind, track: RtpTrackDescription, packet: Buffer): void {
    const media = this.#users.get(uid);
    if (!media || this.#stopped || !this.#streams[kind]) return;
    media.repair.push(kind, track, packet, (p) => this.#decode(media, uid, kind, track, p));
  }

  /** A packet out of the user's jitter buffer, to its decoder. */
  #decode(media: UserMedia, uid: string, kind: MixMediaKind, track: RtpTrackDescription, packet: Buffer): void {
    if (this.#stopped || this.#users.get(uid) !== media) return;
    if (kind === 'video') {
      if (!media.video) {
        media.video = this.#videoDecoder(uid, track, media.videoClock);
        media.video.setRegion(drawnRegionOf(this.#regions, uid));
      }
      media.video.push(packet);
    } else {
      media.audio ??= this.#audioDecoder(uid, track, media.audioClock);
      media.audio.push(packet);
    }
  }

  /** An RTCP sender report of a user's track (werift: `senderReportOf(receiver's RtcpSrPacket)`). */
  pushSenderReport(uid: string, kind: MixMediaKind, report: SenderReport): void {
    const media = this.#users.get(uid);
    if (media) (kind === 'audio' ? media.audioClock : media.videoClock).senderReport(report);
  }

  /** A new layout (updateLayout): from the next composed frame, the encoder keeps running. */
  setLayout(settings: MixLayoutSettings): void {
    this.#settings = settings;
    this.#engine?.setLayout(settings);
  }

  setImages(images: MixImages): void {
    this.#images = images;
    this.#engine?.setImages(images);
  }

  /**
   * Pause: from the next frame nothing is encoded; the current encoder run closes its last slice and exits.
   * Resolves once that slice (and every earlier one) has been reported. Repeats change nothing.
   */
  hold(): Promise<void> {
    this.#held = true;
    this.#endRun();
    return this.#ended.then(() => undefined);
  }

  /** Resume: the next frame starts a new encoder run (its slices follow the previous run's). */
  resume(): void {
    if (this.#stopped) return;
    this.#held = false;
  }

  /** Stops the clock and the decoders, lets the encoder close the last slice; resolves when it has. */
  async stop(): Promise<FfmpegExit | undefined> {
    if (this.#stopped) return undefined;
    this.#stopped = true;
    this.#frameClock?.stop();
    for (const m of this.#users.values()) m.repair.close();
    const decoders = [...this.#users.values()].flatMap((m) => [m.video?.stop(), m.audio?.stop()]);
    this.#users.clear();
    const exit = this.#endRun();
    await this.#ended;
    await Promise.all(decoders);
    return exit;
  }

  /** Ends the current run, if any: its exit, once it has reported its last slice. */
  #endRun(): Promise<FfmpegExit> | undefined {
    const run = this.#run;
    if (!run) return undefined;
    this.#run = undefined;
    const exit = run.encoder.finish();
    // The run's last slices are queued on `reported` by the time its output list has ended (finish resolved).
    this.#ended = exit.then(() => run.reported);
    return exit;
  }

  /** A new encoder run whose time 0 is output frame `index`. */
  #startRun(index: number): MixEncoder {
    const o = this.options;
    const previous = this.#ended;
    const run: EncoderRun = {
      reported: previous.then(
        () => undefined,
        () => undefined,
      ),
      encoder: new MixEncoder(
        {
          workDir: join(o.workDir, MIX_SLICE_SUBDIR, `run${this.#runs++}`),
          canvas: o.canvas,
          fps: o.fps,
          bitrateKbps: o.bitrateKbps,
          audio: this.#streams.audio ? o.audioProfile : null,
          video: this.#streams.video,
          originMs: this.#engine!.frameTimeMs(index),
          ...(o.sliceSeconds !== undefined ? { sliceSeconds: o.sliceSeconds } : {}),
        },
        {
          onSlice: (s) => {
            run.reported = run.reported.then(() => this.events.onSlice(s)).catch(() => undefined);
          },
          onFailure: (e) => this.events.onFailure?.(e),
        },
      ),
    };
    this.#run = run;
    return run.encoder;
  }

  #emit(index: number): void {
    const engine = this.#engine!;
    // The decoders' next chance to write their queued input is the next frame.
    const nextChanceMs = Math.max(this.options.clock.now(), engine.frameTimeMs(index + 1));
    for (const media of this.#users.values()) {
      media.video?.flush(nextChanceMs);
      media.audio?.flush(nextChanceMs);
    }
    if (this.#held) {
      // Nothing is drawn or encoded; the engine's state (roster, shown frames, audio cursor) still moves on.
      this.#setRegions(engine.frame(index, null).regions);
      return;
    }
    const encoder = this.#run?.encoder ?? this.#startRun(index);
    const canvas = this.#streams.video ? engine.createCanvasFrame() : null;
    const frame = engine.frame(index, canvas);
    this.#setRegions(frame.regions);
    if (canvas) encoder.writeVideo(canvas.data, () => engine.releaseCanvasFrame(canvas));
    if (this.#streams.audio) encoder.writeAudio(frame.audio);
    this.events.onFrame?.(frame);
    for (const observe of this.#observers) observe(frame);
  }

  #setRegions(regions: readonly MixRegion[]): void {
    this.#regions = regions;
    for (const [uid, media] of this.#users) {
      const drawn = drawnRegionOf(regions, uid);
      media.video?.setRegion(drawn);
      this.events.onDrawn?.(uid, drawn);
    }
  }

  #videoDecoder(uid: string, track: RtpTrackDescription, clock: SenderClock): UserVideoDecoder {
    return new UserVideoDecoder({
      uid,
      track,
      clock,
      workDir: join(this.options.workDir, 'decoders'),
      bound: this.options.decodeBound ?? this.options.canvas,
      now: () => this.options.clock.now(),
      latencyMs: this.options.latencyMs ?? DEFAULT_MIX_LATENCY_MS,
      onFrame: (frame, senderTimeMs) => this.#engine?.videoFrame(uid, frame, senderTimeMs),
      onKeyframeNeeded: () => this.events.onKeyframeNeeded?.(uid),
    });
  }

  #audioDecoder(uid: string, track: RtpTrackDescription, clock: SenderClock): UserAudioDecoder {
    // Audio that arrives further behind its sender time than the latency window is dropped as late: a sender clock
    // that far behind ours (not a stall) stops being trusted, for both of the user's streams.
    const late = new LateSenderClock(this.options.latencyMs ?? DEFAULT_MIX_LATENCY_MS);
    return new UserAudioDecoder({
      track,
      channels: this.options.audioProfile.channels,
      clock,
      now: () => this.options.clock.now(),
      latencyMs: this.options.latencyMs ?? DEFAULT_MIX_LATENCY_MS,
      onPcm: (senderTimeMs, pcm) => {
        this.#engine?.audio(uid, senderTimeMs, pcm);
        this.events.onAudio?.(uid, senderTimeMs, pcm);
      },
      onReportedLag: (arrivalMs, lagMs) => {
        if (late.observe(arrivalMs, lagMs)) this.#distrustSenderClock(uid, lagMs);
      },
    });
  }

  #distrustSenderClock(uid: string, lagMs: number): void {
    const media = this.#users.get(uid);
    if (!media) return;
    media.audioClock.distrustReports();
    media.videoClock.distrustReports();
    this.events.onSenderClockDistrusted?.(uid, lagMs);
  }
}
