/**
 * The mix recorder's settings, derived once from the validated start request with the hosted service's defaults,
 * and the one translation of the API's layout fields (start's `transcodingConfig`, `updateLayout`'s body) into the
 * compositor's layout settings (pure; docs/recording-mix.md, "The session").
 */
import type { Profile } from '../../channel/index.ts';
import {
  completeMixLayoutSettings,
  mixAudioProfile,
  type CanvasSize,
  type MixAudioProfile,
  type MixLayoutKind,
  type MixLayoutSettings,
} from '../../media/mix/index.ts';
import type { RecordingTask } from '../../recording/dispatch/index.ts';
import type { UpdateLayoutClientRequest } from '../../recording/index.ts';
import type { Mp4Split } from '../common/output/index.ts';
import { createSubscription, type Subscription } from '../common/follower/index.ts';

/** transcodingConfig defaults: a 360 × 640 portrait canvas at 15 fps and 500 Kbps. */
export const DEFAULT_CANVAS: CanvasSize = Object.freeze({ width: 360, height: 640 });
export const DEFAULT_FPS = 15;
export const DEFAULT_BITRATE_KBPS = 500;
/** The frame rates the service takes; any other value silently becomes 15. */
export const ACCEPTED_FPS: readonly number[] = Object.freeze([1, 7, 10, 15, 24, 30, 60]);
export const DEFAULT_MAX_IDLE_SECONDS = 30;

/**
 * A new MP4 starts after this much media or this many bytes, whichever comes first (the service documents
 * "about 2 hours or about 2 GB"; one later page says 3 hours: docs/recording-mix.md).
 */
export const MP4_MAX_MS = 2 * 3_600_000;
export const MP4_MAX_BYTES = 2 * 1024 ** 3;

export interface MixOptions {
  readonly profile: Profile;
  readonly subscription: Subscription;
  readonly canvas: CanvasSize;
  readonly fps: number;
  readonly bitrateKbps: number;
  readonly audioProfile: MixAudioProfile;
  readonly streams: { readonly audio: boolean; readonly video: boolean };
  readonly layout: MixLayoutSettings;
  readonly maxIdleMs: number;
  readonly mp4: boolean;
}

/** The layout fields shared by start's transcodingConfig and updateLayout's clientRequest. */
export type LayoutFields = UpdateLayoutClientRequest;

/** Request fields → complete layout settings: every omitted field takes its default (updateLayout replaces all). */
export function layoutSettings(f: LayoutFields = {}): MixLayoutSettings {
  const renderMode = (m: number | undefined) => (m === 1 ? ('fit' as const) : ('crop' as const));
  return completeMixLayoutSettings({
    ...(f.mixedVideoLayout !== undefined ? { kind: f.mixedVideoLayout as MixLayoutKind } : {}),
    ...(f.maxResolutionUid ? { maxResolutionUid: f.maxResolutionUid } : {}),
    ...(f.backgroundColor ? { backgroundColor: f.backgroundColor.toUpperCase() } : {}),
    ...(f.backgroundImage ? { backgroundImageUrl: f.backgroundImage } : {}),
    ...(f.defaultUserBackgroundImage ? { defaultUserBackgroundImageUrl: f.defaultUserBackgroundImage } : {}),
    customRegions: (f.layoutConfig ?? []).map((e) => ({
      uid: e.uid ? e.uid : null,
      x: e.x_axis,
      y: e.y_axis,
      width: e.width,
      height: e.height,
      alpha: e.alpha ?? 1,
      renderMode: renderMode(e.render_mode),
    })),
    userBackgrounds: (f.backgroundConfig ?? []).map((b) => ({ uid: b.uid, imageUrl: b.image_url, renderMode: renderMode(b.render_mode) })),
  });
}

/** Every image URL a layout names, once each. */
export function layoutImageUrls(s: MixLayoutSettings): string[] {
  const urls = [s.backgroundImageUrl, s.defaultUserBackgroundImageUrl, ...s.userBackgrounds.map((b) => b.imageUrl)];
  return [...new Set(urls.filter((u): u is string => u !== null))];
}

/**
 * The canvas as composed and encoded: H.264 in 4:2:0 needs even sides, so an odd side the API accepted loses one
 * pixel (a 375×667 canvas is recorded 374×666), the layout's fractions applied to that size.
 */
export function evenCanvas(width: number, height: number): CanvasSize {
  return Object.freeze({ width: width - (width % 2), height: height - (height % 2) });
}

export function mixOptions(task: RecordingTask): MixOptions {
  const cr = task.clientRequest;
  const rc = cr.recordingConfig;
  const tc = rc?.transcodingConfig;
  const avFileType = cr.recordingFileConfig?.avFileType ?? ['hls'];
  const fps = tc?.fps !== undefined && ACCEPTED_FPS.includes(tc.fps) ? tc.fps : DEFAULT_FPS;
  return Object.freeze({
    profile: rc?.channelType === 1 ? 'live' : 'communication',
    subscription: createSubscription(task.subscription),
    canvas: evenCanvas(tc?.width ?? DEFAULT_CANVAS.width, tc?.height ?? DEFAULT_CANVAS.height),
    fps,
    bitrateKbps: tc?.bitrate ?? DEFAULT_BITRATE_KBPS,
    audioProfile: mixAudioProfile(rc?.audioProfile ?? 0),
    streams: Object.freeze({ audio: task.subscription.audio, video: task.subscription.video }),
    // The latest updateLayout wins over start's layout when a resumed session is handed over again.
    layout: layoutSettings(task.layout ?? tc),
    maxIdleMs: (rc?.maxIdleTime ?? DEFAULT_MAX_IDLE_SECONDS) * 1000,
    mp4: avFileType.includes('mp4'),
  });
}

/** Mix MP4s: a new file before one would pass MP4_MAX_MS or MP4_MAX_BYTES. */
export const MIX_MP4_SPLIT: Mp4Split = Object.freeze({ kind: 'before-passing', maxMs: MP4_MAX_MS, maxBytes: MP4_MAX_BYTES });
