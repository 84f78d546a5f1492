/**
 * The mix's state between the decoders and the encoder, without I/O (docs/recording-mix.md, "Live pipeline"):
 * who is in (join order, video state), each user's decoded frames, the audio timeline, the layout. The caller's
 * frame clock asks for output frame n; the engine composes it from whatever it has at that instant (last frame
 * held, the 3.5 s rule, background) and pulls exactly the audio that belongs to that frame's duration, so nothing a
 * decoder does or fails to do can delay or skip an output frame. Video and audio both run on the senders' clocks,
 * `latencyMs` behind: output frame n at time T shows each user's newest frame sent by T − latency and carries the
 * audio sent around T − latency, so a flash and a beep sent together come out together.
 */
import { ActiveSpeakerSelector, rmsDbfs } from '../active-speaker.ts';
import { type MixAudioProfile, MIX_SAMPLE_RATE } from '../audio-profile.ts';
import type { PcmFrame } from '../audio-mixer.ts';
import { type AudioPlacement, AudioTimeline } from '../audio-timeline.ts';
import { hexToYuv, type YuvColour } from '../colour.ts';
import { MixCompositor } from '../compositor.ts';
import type { I420Frame } from '../i420.ts';
import { layout } from '../layout.ts';
import { MIX_LAYOUT, type MixLayoutSettings } from '../layout-settings.ts';
import type { CanvasSize, MixRegion } from '../region.ts';
import { EMPTY_ROSTER, type MixRoster, rosterJoin, rosterLayoutUsers, rosterLeave, rosterPrune, rosterVideoFrame } from '../roster.ts';
import type { ScalingMethod } from '../scaling-plan.ts';
import { composeScene, type PlacedImage } from '../scene.ts';

export interface MixEngineOptions {
  readonly canvas: CanvasSize;
  readonly fps: number;
  readonly audioProfile: MixAudioProfile;
  /** Wall-clock time (ms) of output frame 0 and audio sample 0. */
  readonly originMs: number;
  readonly settings: MixLayoutSettings;
  /**
   * How far behind real time the mix runs on the senders' clocks: the window in which users' decoded audio and
   * video must have arrived (default 400 ms). Later media is dropped (audio) or shown late (video).
   */
  readonly latencyMs?: number;
  readonly scaling?: ScalingMethod;
  /** A frame given to `videoFrame` that the engine no longer holds: its decoder may refill the buffer. */
  readonly onFrameReleased?: (uid: string, frame: I420Frame) => void;
}

/** Decoded images from the layout's URLs (fetching and decoding them is the session's job). */
export interface MixImages {
  readonly canvas: I420Frame | null;
  readonly defaultUser: I420Frame | null;
  readonly users: ReadonlyMap<string, PlacedImage>;
}

export const NO_MIX_IMAGES: MixImages = Object.freeze({ canvas: null, defaultUser: null, users: new Map() });

export interface MixOutputFrame {
  readonly index: number;
  /** Wall-clock time this frame stands for. */
  readonly atMs: number;
  /** Null when the caller asked for audio only (streamTypes 0): nothing is composed. */
  readonly video: I420Frame | null;
  /** Interleaved s16 at 48 kHz, exactly this frame's share of audio. */
  readonly audio: Int16Array;
  readonly regions: readonly MixRegion[];
}

/** The jitter window by default (`latencyMs`). */
export const DEFAULT_MIX_LATENCY_MS = 400;
/** Frames waiting for their display time per user; beyond it the oldest is shown early rather than kept. */
const QUEUE_LIMIT = 30;

interface QueuedFrame {
  readonly frame: I420Frame;
  readonly senderTimeMs: number;
}

export class MixEngine {
  readonly canvas: CanvasSize;
  readonly fps: number;
  readonly originMs: number;
  readonly latencyMs: number;
  readonly #compositor: MixCompositor;
  readonly #timeline: AudioTimeline;
  readonly #latest = new Map<string, I420Frame>();
  readonly #queued = new Map<string, QueuedFrame[]>();
  readonly #speaker = new ActiveSpeakerSelector();
  #roster: MixRoster = EMPTY_ROSTER;
  #settings: MixLayoutSettings;
  #background: YuvColour;
  #images: MixImages = NO_MIX_IMAGES;
  #canvasFrames: I420Frame[] = [];
  readonly #onFrameReleased: ((uid: string, frame: I420Frame) => void) | undefined;

  constructor(options: MixEngineOptions) {
    if (!(Number.isInteger(options.fps) && options.fps > 0)) throw new RangeError(`fps must be a positive whole number, got ${options.fps}`);
    this.canvas = options.canvas;
    this.fps = options.fps;
    this.originMs = options.originMs;
    this.latencyMs = options.latencyMs ?? DEFAULT_MIX_LATENCY_MS;
    this.#compositor = new MixCompositor(options.canvas, options.scaling);
    this.#timeline = new AudioTimeline({ originMs: options.originMs - this.latencyMs, channels: options.audioProfile.channels });
    this.#settings = options.settings;
    this.#background = hexToYuv(options.settings.backgroundColor);
    this.#onFrameReleased = options.onFrameReleased;
  }

  get roster(): MixRoster {
    return this.#roster;
  }

  join(uid: string): void {
    this.#roster = rosterJoin(this.#roster, uid);
  }

  leave(uid: string, atMs: number): void {
    this.#roster = rosterLeave(this.#roster, uid, atMs);
    this.#timeline.forget(uid);
    this.#speaker.remove(uid);
    this.#queued.delete(uid);
  }

  /** A decoded frame stamped with its sender's wall-clock time; shown from output time senderTimeMs + latency. */
  videoFrame(uid: string, frame: I420Frame, senderTimeMs: number): void {
    if (!this.#roster.some((e) => e.uid === uid && e.video.kind !== 'left')) return;
    let queue = this.#queued.get(uid);
    if (!queue) this.#queued.set(uid, (queue = []));
    queue.push({ frame, senderTimeMs });
    if (queue.length > QUEUE_LIMIT) this.#show(uid, queue.shift()!.frame);
  }

  #show(uid: string, frame: I420Frame): void {
    const previous = this.#latest.get(uid);
    this.#latest.set(uid, frame);
    if (previous && previous !== frame) this.#onFrameReleased?.(uid, previous);
  }

  /** Decoded audio stamped with its sender's wall-clock time. */
  audio(uid: string, senderTimeMs: number, pcm: PcmFrame): AudioPlacement {
    if (!this.#roster.some((e) => e.uid === uid && e.video.kind !== 'left')) return { kind: 'dropped', reason: 'late', frames: 0 };
    this.#speaker.observe(uid, senderTimeMs, rmsDbfs(pcm.samples));
    // The timeline's frame 0 is originMs − latency: audio is mixed that far behind the video frame it goes with.
    return this.#timeline.push(uid, senderTimeMs, pcm);
  }

  /** A new layout: applies from the next composed frame. */
  setLayout(settings: MixLayoutSettings): void {
    this.#settings = settings;
    this.#background = hexToYuv(settings.backgroundColor);
  }

  setImages(images: MixImages): void {
    this.#images = images;
  }

  /** Wall-clock time of output frame `index`. */
  frameTimeMs(index: number): number {
    return this.originMs + (index * 1000) / this.fps;
  }

  /** Audio frames (48 kHz) that belong to output frame `index`: cumulative rounding, so no sample is lost. */
  audioFramesOf(index: number): number {
    const at = (n: number): number => Math.floor((n * MIX_SAMPLE_RATE) / this.fps);
    return at(index + 1) - at(index);
  }

  /**
   * Composes output frame `index` into a canvas buffer and mixes its audio. `canvas` is where to draw (the caller
   * rotates buffers while the encoder pipe drains); one is allocated when not given, and with null nothing is drawn.
   */
  frame(index: number, canvas?: I420Frame | null): MixOutputFrame {
    const atMs = this.frameTimeMs(index);
    this.#roster = rosterPrune(this.#roster, atMs);
    for (const uid of this.#latest.keys()) if (!this.#roster.some((e) => e.uid === uid)) this.#latest.delete(uid);
    this.#showDueFrames(atMs);
    const users = rosterLayoutUsers(this.#roster, atMs);
    const speaker = this.#settings.kind === MIX_LAYOUT.activeSpeaker ? this.#speaker.update(atMs - this.latencyMs) : null;
    const regions = layout(this.#settings.kind, this.canvas, users, {
      maxResolutionUid: this.#settings.maxResolutionUid,
      customRegions: this.#settings.customRegions,
      activeSpeakerUid: speaker,
    });
    const composition = composeScene(regions, this.#roster, atMs, {
      latestFrames: this.#latest,
      userImages: this.#images.users,
      defaultUserImage: this.#images.defaultUser,
      canvasImage: this.#images.canvas,
      backgroundColour: this.#background,
    });
    const video = canvas === null ? null : this.#compositor.compose(canvas ?? this.#compositor.createCanvasFrame(), composition);
    const audio = this.#timeline.pull(this.audioFramesOf(index), 's16') as Int16Array;
    return { index, atMs, video, audio, regions };
  }

  /** Each user's newest frame sent by atMs − latency becomes the one shown; the 3.5 s rule counts from here. */
  #showDueFrames(atMs: number): void {
    const due = atMs - this.latencyMs;
    for (const [uid, queue] of this.#queued) {
      let shown: I420Frame | undefined;
      while (queue.length > 0 && queue[0]!.senderTimeMs <= due) {
        if (shown) this.#onFrameReleased?.(uid, shown); // superseded within one output frame
        shown = queue.shift()!.frame;
      }
      if (!shown) continue;
      this.#show(uid, shown);
      this.#roster = rosterVideoFrame(this.#roster, uid, atMs);
    }
  }

  createCanvasFrame(): I420Frame {
    const spare = this.#canvasFrames.pop();
    return spare ?? this.#compositor.createCanvasFrame();
  }

  /** Gives a canvas buffer back once the encoder has taken it. */
  releaseCanvasFrame(frame: I420Frame): void {
    if (this.#canvasFrames.length < 8) this.#canvasFrames.push(frame);
  }
}
