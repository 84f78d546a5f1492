/**
 * Individual mode's settings: the start request's fields an individual recorder runs with, every omitted one
 * given the hosted service's default (docs/recording-individual.md). Pure.
 */
import type { Profile } from '../../../channel/index.ts';
import type { AudioMixFormat } from '../../../media/index.ts';
import { subscriptionRequest, type SubscriptionRequest } from '../subscription.ts';
import { channelProfile, DEFAULT_MAX_IDLE_SECONDS, type SettingsSource, speakerSettings, type TranscriptionTarget } from './source.ts';

export type StreamMode = 'default' | 'standard' | 'original';

/** Scene 2's step after the recording (`transcodeOptions`); `none` in scenes 0 and 1. */
export type PostProcess =
  | { readonly kind: 'none' }
  | { readonly kind: 'postponeTranscoding' }
  | {
      readonly kind: 'audioMix';
      readonly format: AudioMixFormat;
      readonly sampleRate: number;
      readonly bitrate: number;
      readonly channels: 1 | 2;
    };

export interface IndividualSettings {
  readonly mode: 'individual';
  /** `recordingConfig.channelType`: 1 → live, else communication. */
  readonly profile: Profile;
  /** Whom to record (`recordingConfig.streamTypes` and the uid lists). */
  readonly subscription: SubscriptionRequest;
  readonly streamMode: StreamMode;
  readonly maxIdleMs: number;
  /** Playlists and slices are published (`hls` in `avFileType`); false: slices stay local, the MP4s' intermediate. */
  readonly hls: boolean;
  readonly mp4: boolean;
  /** Seconds between snapshots; undefined without snapshotConfig. */
  readonly snapshotSec: number | undefined;
  readonly postProcess: PostProcess;
  /** Paused now: start's `recordingConfig.onhold`, then each update's. */
  readonly onhold: boolean;
  /** reeltime's `recordingConfig.speakerTimeline`: who spoke when, beside the recording. */
  readonly speakerTimeline: boolean;
  /** reeltime's `recordingConfig.transcription`: where each interval's audio goes for its text. */
  readonly transcription: TranscriptionTarget | undefined;
}

/** Defaults of the spec's tables: `captureInterval`, and scene 2 audio mixing's sample rate and bitrate. */
export const DEFAULT_CAPTURE_INTERVAL = 10;
export const DEFAULT_MIX_SAMPLE_RATE = 48_000;
export const DEFAULT_MIX_BITRATE = 48_000;

function postProcess(s: SettingsSource): PostProcess {
  const t = s.clientRequest.transcodeOptions;
  if (s.scene !== 2 || !t) return { kind: 'none' };
  if (t.transConfig.transMode === 'postponeTranscoding') return { kind: 'postponeTranscoding' };
  const format = t.container?.format;
  return {
    kind: 'audioMix',
    format: format === 'm4a' || format === 'aac' ? format : 'mp3',
    sampleRate: t.audio?.sampleRate ? Number(t.audio.sampleRate) : DEFAULT_MIX_SAMPLE_RATE,
    bitrate: t.audio?.bitrate ? Number(t.audio.bitrate) : DEFAULT_MIX_BITRATE,
    channels: t.audio?.channels === '1' ? 1 : 2,
  };
}

export function individualSettings(s: SettingsSource): IndividualSettings {
  const cr = s.clientRequest;
  const rc = cr.recordingConfig;
  const avFileType = cr.recordingFileConfig?.avFileType ?? ['hls'];
  const snapshotOnly = cr.snapshotConfig !== undefined && cr.recordingFileConfig === undefined;
  return Object.freeze({
    mode: 'individual',
    profile: channelProfile(rc?.channelType),
    subscription: subscriptionRequest(rc),
    streamMode: rc?.streamMode ?? 'default',
    maxIdleMs: (rc?.maxIdleTime ?? DEFAULT_MAX_IDLE_SECONDS) * 1000,
    hls: !snapshotOnly && avFileType.includes('hls'),
    mp4: !snapshotOnly && avFileType.includes('mp4'),
    snapshotSec: cr.snapshotConfig ? (cr.snapshotConfig.captureInterval ?? DEFAULT_CAPTURE_INTERVAL) : undefined,
    postProcess: Object.freeze(postProcess(s)),
    onhold: s.onhold ?? rc?.onhold === true,
    ...speakerSettings(rc),
  });
}
