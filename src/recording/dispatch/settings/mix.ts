/**
 * Mix mode's settings, and the one translation of the API's layout fields (start's `transcodingConfig`,
 * `updateLayout`'s body) into the compositor's layout settings (pure; docs/recording-mix.md, "The session").
 */
import type { Profile } from '../../../channel/index.ts';
import {
  completeMixLayoutSettings,
  mixAudioProfile,
  type CanvasSize,
  type MixAudioProfile,
  type MixLayoutKind,
  type MixLayoutSettings,
} from '../../../media/mix/index.ts';
import type { LayoutFields } from '../../validation/types.ts';
import { subscriptionRequest, type SubscriptionRequest } from '../subscription.ts';
import { channelProfile, DEFAULT_MAX_IDLE_SECONDS, type SettingsSource, speakerSettings, type TranscriptionTarget } from './source.ts';

/** transcodingConfig defaults: a 360 × 640 portrait canvas at 15 fps and 500 Kbps. */
export const DEFAULT_CANVAS: CanvasSize = Object.freeze({ width: 360, height: 640 });
export const DEFAULT_FPS = 15;
export const DEFAULT_BITRATE_KBPS = 500;
/** The frame rates the service takes; any other value silently becomes 15. */
export const ACCEPTED_FPS: readonly number[] = Object.freeze([1, 7, 10, 15, 24, 30, 60]);

export interface MixSettings {
  readonly mode: 'mix';
  readonly profile: Profile;
  /** Whom to mix; `audio`/`video` false: that kind is not in the output at all (`streamTypes`). */
  readonly subscription: SubscriptionRequest;
  /** The canvas as composed and encoded (evenCanvas). */
  readonly canvas: CanvasSize;
  readonly fps: number;
  readonly bitrateKbps: number;
  readonly audioProfile: MixAudioProfile;
  /** The layout now: start's, or the last updateLayout's, complete. */
  readonly layout: MixLayoutSettings;
  readonly maxIdleMs: number;
  readonly mp4: boolean;
  /** Paused now: start's `recordingConfig.onhold`, then each update's. */
  readonly onhold: boolean;
  /** reeltime's `recordingConfig.speakerTimeline`: who spoke when, beside the recording. */
  readonly speakerTimeline: boolean;
  /** reeltime's `recordingConfig.transcription`: where each interval's audio goes for its text. */
  readonly transcription: TranscriptionTarget | undefined;
}

/** Request fields → complete layout settings: every omitted field takes its default (updateLayout replaces all). */
export function mixLayoutSettings(f: LayoutFields = {}): MixLayoutSettings {
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

/**
 * The canvas as composed and encoded: H.264 in 4:2:0 needs even sides, so an odd side the API accepted loses one
 * pixel (a 375×667 canvas is recorded 374×666), the layout's fractions applied to that size.
 */
export function evenCanvas(width: number, height: number): CanvasSize {
  return Object.freeze({ width: width - (width % 2), height: height - (height % 2) });
}

export function mixSettings(s: SettingsSource): MixSettings {
  const cr = s.clientRequest;
  const rc = cr.recordingConfig;
  const tc = rc?.transcodingConfig;
  const avFileType = cr.recordingFileConfig?.avFileType ?? ['hls'];
  return Object.freeze({
    mode: 'mix',
    profile: channelProfile(rc?.channelType),
    subscription: subscriptionRequest(rc),
    canvas: evenCanvas(tc?.width ?? DEFAULT_CANVAS.width, tc?.height ?? DEFAULT_CANVAS.height),
    fps: tc?.fps !== undefined && ACCEPTED_FPS.includes(tc.fps) ? tc.fps : DEFAULT_FPS,
    bitrateKbps: tc?.bitrate ?? DEFAULT_BITRATE_KBPS,
    audioProfile: mixAudioProfile(rc?.audioProfile ?? 0),
    // The latest updateLayout wins over start's layout when a resumed session is handed over again.
    layout: mixLayoutSettings(s.layout ?? tc),
    maxIdleMs: (rc?.maxIdleTime ?? DEFAULT_MAX_IDLE_SECONDS) * 1000,
    mp4: avFileType.includes('mp4'),
    onhold: s.onhold ?? rc?.onhold === true,
    ...speakerSettings(rc),
  });
}
