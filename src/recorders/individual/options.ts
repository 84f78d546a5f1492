/**
 * The individual recorder's settings, derived once from the validated start request with the hosted
 * service's defaults (pure).
 */
import type { Profile } from '../../channel/index.ts';
import type { AudioMixFormat } from '../../media/index.ts';
import type { RecordingTask } from '../../recording/dispatch/index.ts';
import { createSubscription, type Subscription } from '../common/follower/index.ts';

export type StreamMode = 'default' | 'standard' | 'original';

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

export interface IndividualOptions {
  readonly profile: Profile;
  readonly subscription: Subscription;
  readonly streamMode: StreamMode;
  readonly maxIdleMs: number;
  /** Playlists and slices are published (`hls` in `avFileType`); false: slices stay local, the MP4s' intermediate. */
  readonly hls: boolean;
  readonly mp4: boolean;
  /** Seconds between snapshots; undefined without snapshotConfig. */
  readonly snapshotSec: number | undefined;
  readonly postProcess: PostProcess;
  /** `bak<n>_` generation of this recorder run; undefined for the first one. */
  readonly backupIndex: number | undefined;
}

/** Defaults of the spec's tables: `maxIdleTime`, `captureInterval`, and scene 2 audio mixing's sample rate and bitrate. */
export const DEFAULT_MAX_IDLE_SECONDS = 30;
export const DEFAULT_CAPTURE_INTERVAL = 10;
export const DEFAULT_MIX_SAMPLE_RATE = 48_000;
export const DEFAULT_MIX_BITRATE = 48_000;

/** `backupIndex`: the resumed run's `bak<n>_` index, found on disk and in the reported files (common/recovery.ts). */
export function individualOptions(task: RecordingTask, backupIndex?: number): IndividualOptions {
  const cr = task.clientRequest;
  const rc = cr.recordingConfig;
  const avFileType = cr.recordingFileConfig?.avFileType ?? ['hls'];
  const snapshotOnly = cr.snapshotConfig !== undefined && cr.recordingFileConfig === undefined;
  const t = cr.transcodeOptions;
  let postProcess: PostProcess = { kind: 'none' };
  if (task.scene === 2 && t) {
    if (t.transConfig.transMode === 'postponeTranscoding') postProcess = { kind: 'postponeTranscoding' };
    else {
      const format = t.container?.format;
      postProcess = {
        kind: 'audioMix',
        format: format === 'm4a' || format === 'aac' ? format : 'mp3',
        sampleRate: t.audio?.sampleRate ? Number(t.audio.sampleRate) : DEFAULT_MIX_SAMPLE_RATE,
        bitrate: t.audio?.bitrate ? Number(t.audio.bitrate) : DEFAULT_MIX_BITRATE,
        channels: t.audio?.channels === '1' ? 1 : 2,
      };
    }
  }
  return Object.freeze({
    profile: rc?.channelType === 1 ? 'live' : 'communication',
    subscription: createSubscription(task.subscription),
    streamMode: rc?.streamMode ?? 'default',
    maxIdleMs: (rc?.maxIdleTime ?? DEFAULT_MAX_IDLE_SECONDS) * 1000,
    hls: !snapshotOnly && avFileType.includes('hls'),
    mp4: !snapshotOnly && avFileType.includes('mp4'),
    snapshotSec: cr.snapshotConfig ? (cr.snapshotConfig.captureInterval ?? DEFAULT_CAPTURE_INTERVAL) : undefined,
    postProcess,
    backupIndex,
  });
}
