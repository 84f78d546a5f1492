/**
 * What one web capture is asked for, checked and completed with defaults once before anything is spawned.
 * Field ranges follow `web_recorder_service.serviceParam` (docs/recording-web.md); the request-level
 * validation with field-naming errors lives in the recording API, this only refuses what would break a capture.
 */
import type { OutboundPolicy } from '../../net/index.ts';
import { mixAudioProfile, type MixAudioProfile, type MixAudioProfileId } from '../mix/audio-profile.ts';
import { isRtmpUrl } from '../push/index.ts';
import { SLICE_SECONDS } from '../slice-policy.ts';

export interface CaptureOptions {
  /** Folder for the segments (created); one capture per folder. */
  readonly workDir: string;
  readonly width: number;
  readonly height: number;
  /** Frames per second, default 15. */
  readonly videoFps?: number;
  /** kb/s; default 2000 at 1280×720 or more, else 1500. */
  readonly videoBitrateKbps?: number;
  readonly audioProfile?: MixAudioProfileId;
  /** Device emulation (viewport = output size, touch, mobile user agent). */
  readonly mobile?: boolean;
  /** Segment length; 15 s unless a test shortens it. */
  readonly sliceSeconds?: number;
  /** Start without encoding (`onhold`); resume() starts the encoder. */
  readonly onhold?: boolean;
  /** `rtmp://` or `rtmps://` target for the CDN push (a pusher process fed by the capture's one encoder). */
  readonly rtmpUrl?: string;
  readonly chromiumPath?: string;
  /** The pusher's connect and stall limits (tests shorten them); CdnPusher's defaults otherwise. */
  readonly pushTimeouts?: PushTimeouts;
  /** The outbound guard's policy for the push target, checked and pinned at connect time (production). */
  readonly pushPolicy?: OutboundPolicy | undefined;
  /**
   * The page's host (first) and the other hosts the operator lets pages load from, each with the address the
   * outbound guard approved for it: the browser resolves those names to those addresses and, unless `openNetwork`,
   * no other name or address at all. Without pins only 127.0.0.1 is reachable (development, tests).
   */
  readonly pinnedHosts?: readonly PinnedHost[];
  /** Names without a pin resolve through the system (the operator's `recording.webPageHosts` `*`). */
  readonly openNetwork?: boolean;
}

export interface PinnedHost {
  /** `URL.hostname` of the page (an IPv6 literal with its brackets). */
  readonly host: string;
  /** The approved address (IPv6 without brackets). */
  readonly address: string;
}

export interface PushTimeouts {
  readonly connectTimeoutMs?: number;
  readonly stallTimeoutMs?: number;
}

export interface ResolvedCaptureOptions {
  readonly workDir: string;
  /** The page's size: window, viewport and screen grab (may be odd, e.g. a 375×667 phone viewport). */
  readonly width: number;
  readonly height: number;
  /** The encoded picture: the page's size with an odd side cropped by one pixel (right column, bottom row). */
  readonly encodedWidth: number;
  readonly encodedHeight: number;
  readonly videoFps: number;
  readonly videoBitrateKbps: number;
  readonly audio: MixAudioProfile;
  readonly mobile: boolean;
  readonly sliceSeconds: number;
  readonly onhold: boolean;
  readonly rtmpUrl: string | undefined;
  readonly chromiumPath: string;
  readonly pushTimeouts: PushTimeouts;
  readonly pushPolicy: OutboundPolicy | undefined;
  readonly pinnedHosts: readonly PinnedHost[];
  readonly openNetwork: boolean;
}

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
export const DEFAULT_VIDEO_FPS = 15;

export function defaultVideoBitrateKbps(width: number, height: number): number {
  return width * height >= 1280 * 720 ? 2000 : 1500;
}

function intIn(name: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${name} must be an integer in [${min},${max}], got ${v}`);
  return v;
}

export function resolveCaptureOptions(o: CaptureOptions): ResolvedCaptureOptions {
  const width = intIn('width', o.width, 240, 1920);
  const height = intIn('height', o.height, 240, 1920);
  if (width * height > 1920 * 1080) throw new RangeError(`width × height must be at most 1920 × 1080, got ${width}×${height}`);
  const sliceSeconds = o.sliceSeconds ?? SLICE_SECONDS;
  if (!Number.isInteger(sliceSeconds) || sliceSeconds < 1) throw new RangeError(`sliceSeconds must be a positive integer, got ${sliceSeconds}`);
  if (o.rtmpUrl !== undefined && !isRtmpUrl(o.rtmpUrl)) throw new RangeError('rtmpUrl must be an rtmp:// or rtmps:// URL');
  // The pin becomes a Chromium host rule, whose syntax has separators (`,`, space) and a wildcard (`*`) that a
  // URL's host may legally contain: only plain DNS names and address literals are pinned.
  for (const pin of o.pinnedHosts ?? []) {
    if (!(/^[a-z0-9.-]+$/.test(pin.host) || /^\[[0-9a-f:.]+\]$/.test(pin.host))) {
      throw new RangeError(`the host ${JSON.stringify(pin.host)} cannot be pinned (letters, digits, dots and dashes only)`);
    }
    if (!/^[0-9a-f:.]+$/.test(pin.address)) throw new RangeError('a pinned address must be an IP address');
  }
  return Object.freeze({
    workDir: o.workDir,
    width,
    height,
    // libx264 with 4:2:0 chroma needs even sizes. Cropping keeps only what the page drew (a padded line would be a
    // black edge the page never showed); the lost pixel is the page's last column or row.
    encodedWidth: width - (width % 2),
    encodedHeight: height - (height % 2),
    videoFps: intIn('videoFps', o.videoFps ?? DEFAULT_VIDEO_FPS, 5, 60),
    videoBitrateKbps: intIn('videoBitrateKbps', o.videoBitrateKbps ?? defaultVideoBitrateKbps(width, height), 50, 8000),
    audio: mixAudioProfile(o.audioProfile),
    mobile: o.mobile ?? false,
    sliceSeconds,
    onhold: o.onhold ?? false,
    rtmpUrl: o.rtmpUrl,
    chromiumPath: o.chromiumPath ?? DEFAULT_CHROMIUM_PATH,
    pushTimeouts: o.pushTimeouts ?? {},
    pushPolicy: o.pushPolicy,
    pinnedHosts: Object.freeze([...(o.pinnedHosts ?? [])]),
    openNetwork: o.openNetwork ?? false,
  });
}
