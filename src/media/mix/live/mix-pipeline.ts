/**
 * The live mix (docs/recording-mix.md, "Live pipeline"): per user a video decoder (latest frame only) and an
 * audio decoder (PCM on the sender's clock), one MixEngine that composes and mixes, one FrameClock on the
 * injected Clock that asks for exactly fps frames per second, and one MixEncoder that writes the slices. The
 * recorder session feeds it what its channel subscriptions give (RTP packets as received with their track
 * description, RTCP sender reports), tells it who joins and leaves, and changes the layout; it gets closed
 * slices back. Inputs never hold up the clock: a user whose decoder is silent is simply not updated.
 */
import { join } from 'node:path';
import type { Clock } from '../../../clock/index.ts';
import type { FfmpegExit } from '../../ffmpeg.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import type { ClosedSlice } from '../../segment-list.ts';
import type { MixAudioProfile } from '../audio-profile.ts';
import type { MixLayoutSettings } from '../layout-settings.ts';
import type { CanvasSize } from '../region.ts';
import { EMPTY_ROSTER, type MixRoster } from '../roster.ts';
import type { ScalingMethod } from '../scaling-plan.ts';
import { UserAudioDecoder } from './audio-decoder.ts';
import { FrameClock } from './frame-clock.ts';
import { MixEncoder } from './mix-encoder.ts';
import { MixEngine, type MixImages, type MixOutputFrame } from './mix-engine.ts';
import { SenderClock, type SenderReport } from './sender-clock.ts';
import { UserVideoDecoder } from './video-decoder.ts';
import type { VideoSize } from './video-size.ts';

export type MixMediaKind = 'audio' | 'video';

/** Subdirectory of the pipeline's work dir where the encoder writes its slices (restart recovery reads it). */
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
}

export interface MixPipelineEvents {
  onSlice(slice: ClosedSlice): void;
  /** The encoder ended on its own: the recording is broken. */
  onFailure?(exit: FfmpegExit): void;
  /** A user's video has no keyframe to start from: send them an RTCP PLI. */
  onKeyframeNeeded?(uid: string): void;
  /** Every composed frame, after it went to the encoder (tests, diagnostics). */
  onFrame?(frame: MixOutputFrame): void;
}

interface UserMedia {
  video?: UserVideoDecoder;
  audio?: UserAudioDecoder;
  readonly audioClock: SenderClock;
  readonly videoClock: SenderClock;
}

export class MixPipeline {
  #engine: MixEngine | undefined;
  #encoder: MixEncoder | undefined;
  #frameClock: FrameClock | undefined;
  readonly #users = new Map<string, UserMedia>();
  readonly #streams: { readonly audio: boolean; readonly video: boolean };
  #settings: MixLayoutSettings;
  #images: MixImages | undefined;
  #stopped = false;

  constructor(
    private readonly options: MixPipelineOptions,
    private readonly events: MixPipelineEvents,
  ) {
    this.#streams = options.streams ?? { audio: true, video: true };
    if (!this.#streams.audio && !this.#streams.video) throw new RangeError('a mix needs audio, video or both');
    this.#settings = options.settings;
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

  /** Starts the encoder and the frame clock; the recording's time 0 is now. */
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
    this.#encoder = new MixEncoder(
      {
        workDir: join(o.workDir, MIX_SLICE_SUBDIR),
        canvas: o.canvas,
        fps: o.fps,
        bitrateKbps: o.bitrateKbps,
        audio: this.#streams.audio ? o.audioProfile : null,
        video: this.#streams.video,
        originMs,
        ...(o.sliceSeconds !== undefined ? { sliceSeconds: o.sliceSeconds } : {}),
      },
      { onSlice: (s) => this.events.onSlice(s), onFailure: (e) => this.events.onFailure?.(e) },
    );
    this.#frameClock = new FrameClock(o.clock, originMs, o.fps, (index) => this.#emit(index));
    this.#frameClock.start();
  }

  join(uid: string): void {
    if (this.#stopped || this.#users.has(uid)) return;
    this.#users.set(uid, { audioClock: new SenderClock(48_000), videoClock: new SenderClock(90_000) });
    this.#engine?.join(uid);
  }

  /** The user left the channel: decoders stop, the region shows the background colour, then the layout reflows. */
  leave(uid: string): void {
    const media = this.#users.get(uid);
    if (!media) return;
    this.#users.delete(uid);
    void media.video?.stop();
    void media.audio?.stop();
    this.#engine?.leave(uid, this.options.clock.now());
  }

  /** One RTP packet of a user's track as received, with the track's negotiated description. */
  pushRtp(uid: string, kind: MixMediaKind, track: RtpTrackDescription, packet: Buffer): void {
    const media = this.#users.get(uid);
    if (!media || this.#stopped || !this.#streams[kind]) return;
    if (kind === 'video') {
      media.video ??= this.#videoDecoder(uid, track, media.videoClock);
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

  /** Stops the clock and the decoders, lets the encoder close the last slice; resolves when it has. */
  async stop(): Promise<FfmpegExit | undefined> {
    if (this.#stopped) return undefined;
    this.#stopped = true;
    this.#frameClock?.stop();
    const decoders = [...this.#users.values()].flatMap((m) => [m.video?.stop(), m.audio?.stop()]);
    this.#users.clear();
    const exit = await this.#encoder?.finish();
    await Promise.all(decoders);
    return exit;
  }

  #emit(index: number): void {
    const engine = this.#engine!;
    const encoder = this.#encoder!;
    const canvas = this.#streams.video ? engine.createCanvasFrame() : null;
    const frame = engine.frame(index, canvas);
    if (canvas) encoder.writeVideo(canvas.data, () => engine.releaseCanvasFrame(canvas));
    if (this.#streams.audio) encoder.writeAudio(frame.audio);
    this.events.onFrame?.(frame);
  }

  #videoDecoder(uid: string, track: RtpTrackDescription, clock: SenderClock): UserVideoDecoder {
    return new UserVideoDecoder({
      uid,
      track,
      clock,
      workDir: join(this.options.workDir, 'decoders'),
      bound: this.options.decodeBound ?? this.options.canvas,
      now: () => this.options.clock.now(),
      onFrame: (frame, senderTimeMs) => this.#engine?.videoFrame(uid, frame, senderTimeMs),
      onKeyframeNeeded: () => this.events.onKeyframeNeeded?.(uid),
    });
  }

  #audioDecoder(uid: string, track: RtpTrackDescription, clock: SenderClock): UserAudioDecoder {
    return new UserAudioDecoder({
      uid,
      track,
      workDir: join(this.options.workDir, 'decoders'),
      channels: this.options.audioProfile.channels,
      clock,
      now: () => this.options.clock.now(),
      onPcm: (senderTimeMs, pcm) => this.#engine?.audio(uid, senderTimeMs, pcm),
    });
  }
}
