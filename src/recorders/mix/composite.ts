/**
 * The mix session's pipeline stage (source → pipeline → sink): the live MixPipeline with the users in it (each
 * user's stream states 43/44 as their media starts and as they leave), the layout and its background images, pause
 * and resume of the encoder. Closed slices go to the caller (the recording output).
 */
import { join } from 'node:path';
import type { MediaKind } from '../../channel/index.ts';
import type { Clock } from '../../clock/index.ts';
import { safeUrl, type Logger } from '../../log/index.ts';
import type { ClosedSlice, RtpTrackDescription } from '../../media/index.ts';
import type { MixLayoutSettings } from '../../media/mix/index.ts';
import { MixPipeline, type MixPipelineEvents, type SenderReport } from '../../media/mix/live/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { VideoSize } from '../../rtp-payload/index.ts';
import { ERROR_CODE, ERROR_LEVEL, EVENT_MODULE, STREAM_STATE, WARN_CODE } from '../../recording/index.ts';
import type { SessionSignals } from '../common/signals/index.ts';
import { ImageLoader } from './images.ts';
import type { MixOptions } from './options.ts';

export interface MixCompositeDeps {
  readonly options: MixOptions;
  readonly workDir: string;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signals: SessionSignals;
  /** Who may be fetched for background images (the outbound guard's policy). */
  readonly policy: OutboundPolicy;
  /** The session starts on hold. */
  readonly onhold: boolean;
  /** Slice length in seconds; undefined: the service's 15 s. */
  readonly sliceSeconds: number | undefined;
  readonly onSlice: (s: ClosedSlice) => void;
  readonly requestKeyframe: (uid: string) => void;
  /** Each composed frame: the size a user is drawn at (its largest region), undefined when not drawn. */
  readonly drawnAt: (uid: string, size: VideoSize | undefined) => void;
  /** The session is ending: images decoded late are no longer shown. */
  readonly ending: () => boolean;
  /** Each user's decoded audio on its sender's clock (the speaker timeline). */
  readonly onAudio?: MixPipelineEvents['onAudio'];
}

export class MixComposite {
  readonly #pipeline: MixPipeline;
  readonly #images: ImageLoader;
  /** Users in the mix (joined the pipeline), and the kinds whose stream has started per user. */
  readonly #members = new Map<string, Set<MediaKind>>();
  #layout: MixLayoutSettings;

  constructor(private readonly d: MixCompositeDeps) {
    const o = d.options;
    this.#layout = o.layout;
    this.#images = new ImageLoader({
      policy: d.policy,
      workDir: join(d.workDir, 'images'),
      canvas: o.canvas,
      onFailure: (url, reason) => {
        d.log.warn({ url: safeUrl(url), reason }, 'background image unusable');
        d.signals.warning(EVENT_MODULE.recorder, WARN_CODE.backgroundImageFailed, `background image ${safeUrl(url)}: ${reason}`);
      },
    });
    const { canvas, fps, bitrateKbps, audioProfile, streams } = o;
    this.#pipeline = new MixPipeline(
      { workDir: d.workDir, clock: d.clock, canvas, fps, bitrateKbps, audioProfile, settings: o.layout, streams, onhold: d.onhold, ...(d.sliceSeconds !== undefined ? { sliceSeconds: d.sliceSeconds } : {}) },
      {
        onSlice: d.onSlice,
        onFailure: (exit) => {
          d.log.error({ code: exit.code, stderr: exit.stderrTail.slice(-300) }, 'mix encoder exited');
          d.signals.error(EVENT_MODULE.recorder, ERROR_LEVEL.major, ERROR_CODE.slicerStopped, 'mix encoder stopped');
        },
        onKeyframeNeeded: d.requestKeyframe,
        // Each frame, for each user: the region itself is the size (no copy on this path).
        onDrawn: d.drawnAt,
        ...(d.onAudio ? { onAudio: d.onAudio } : {}),
        onSenderClockDistrusted: (uid, lagMs) =>
          d.log.warn({ uid, lagMs: Math.round(lagMs) }, 'sender clock too far behind: user placed by arrival time'),
      },
    );
  }

  /** Starts the mix with the start's layout. */
  start(): void {
    this.#pipeline.start();
    this.#applyImages(this.#layout);
  }

  /** The mix's time origin (ms), once started. */
  get originMs(): number | undefined {
    return this.#pipeline.originMs;
  }

  join(uid: string): void {
    if (this.#members.has(uid)) return;
    this.#members.set(uid, new Set());
    this.#pipeline.join(uid);
  }

  leave(uid: string): void {
    const kinds = this.#members.get(uid);
    if (!kinds) return;
    this.#members.delete(uid);
    this.#pipeline.leave(uid);
    for (const kind of kinds) this.d.signals.streamState(uid, kind, STREAM_STATE.stopped);
  }

  /** A member's packet (others' are dropped); the first of a kind starts that stream. */
  pushRtp(uid: string, kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void {
    const kinds = this.#members.get(uid);
    if (!kinds) return;
    if (!kinds.has(kind)) {
      kinds.add(kind);
      this.d.signals.streamState(uid, kind, STREAM_STATE.receiving);
    }
    this.#pipeline.pushRtp(uid, kind, track, packet);
  }

  /** The publisher's clock for this stream: audio and video of every user go on one timeline (sender clocks). */
  pushSenderReport(uid: string, kind: MediaKind, report: SenderReport): void {
    if (this.#members.has(uid)) this.#pipeline.pushSenderReport(uid, kind, report);
  }

  /** The whole layout replaced from the next composed frame; its images as soon as they are decoded. */
  setLayout(settings: MixLayoutSettings): void {
    this.#layout = settings;
    this.#pipeline.setLayout(settings);
    this.#applyImages(settings);
  }

  /** Each URL fetched once per session; the images already decoded at once. */
  #applyImages(settings: MixLayoutSettings): void {
    this.#pipeline.setImages(this.#images.loadedImagesOf(settings));
    void this.#images.imagesOf(settings).then((images) => {
      if (this.#layout === settings && !this.d.ending()) this.#pipeline.setImages(images);
    });
  }

  /** The encoder stops; its run closes the last slice. */
  hold(): Promise<void> {
    return this.#pipeline.hold();
  }

  /** The next composed frame starts a new encoder run. */
  resume(): void {
    this.#pipeline.resume();
  }

  /** Every member leaves; the encoder closes its last slice before it exits. */
  async stop(): Promise<void> {
    for (const uid of [...this.#members.keys()]) this.leave(uid);
    await this.#pipeline.stop();
  }
}
