/** What a capture reports while it runs: one `kind` union, delivered through the capture's one callback. */
import type { CaptureChildName } from './supervised-child.ts';

export interface CapturedSegment {
  /** Absolute path of the closed MPEG-TS file. */
  readonly path: string;
  /** UTC ms of its first sample. */
  readonly startMs: number;
  readonly durationSec: number;
  readonly bytes: number;
  /** Encoder run (0 first; +1 after each resume or push restart). */
  readonly run: number;
  /** First segment of its run: the media before it is not continuous with it (a playlist discontinuity). */
  readonly newStream: boolean;
}

/** Event 72's `limitType`s we detect (its third, `bandwidth`, is not: docs/recording-web.md). */
export type CapabilityLimitType = 'WebGL' | 'resolution';

export type CaptureEvent =
  | { readonly kind: 'segment'; readonly segment: CapturedSegment }
  /** The page called `navigator.notifyReady()`. */
  | { readonly kind: 'page-ready'; readonly atMs: number }
  /** The main document answered (every navigation and reload, the page's own included). */
  | { readonly kind: 'document-status'; readonly url: string; readonly status: number }
  /** The main document could not be loaded at all (`net::ERR_…`). */
  | { readonly kind: 'load-failed'; readonly url: string; readonly errorText: string }
  | { readonly kind: 'renderer-crashed' }
  /** Chromium's audio service died: the page's sound no longer reaches the capture until a reload (audio-service-watch.ts). */
  | { readonly kind: 'audio-service-lost' }
  /** The page uses something web mode does not record: WebGL, or a video source above 1920×1080. */
  | { readonly kind: 'capability-limit'; readonly limitType: CapabilityLimitType }
  /** A child ended without being asked to. */
  | {
      readonly kind: 'child-exited';
      readonly child: CaptureChildName;
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stderrTail: string;
    }
  /** A pusher process started for the target (new stream, new target). */
  | { readonly kind: 'push-connecting'; readonly rtmpUrl: string }
  /** The pusher has written to the CDN. */
  | { readonly kind: 'push-publishing'; readonly rtmpUrl: string }
  /** The push is down (the pusher exited, never got through, or stalled); the slices go on, the push stays down
   * until setPushUrl or the next encoder run (resume) starts a new pusher. */
  | { readonly kind: 'push-failed'; readonly rtmpUrl: string; readonly message: string };

export type CaptureEventListener = (event: CaptureEvent) => void;
