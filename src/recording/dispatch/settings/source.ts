import type { Profile } from '../../../channel/index.ts';
import type { LayoutFields, RecordingMode, Scene, StartClientRequest } from '../../validation/types.ts';

/**
 * What a session's settings are built from: the validated start request and what the control plane stored of the
 * updates since (the stored session, lifecycle/task.ts), so that a recorder resuming the session after a restart
 * or failover runs with what was last asked for.
 */
export interface SettingsSource {
  readonly mode: RecordingMode;
  readonly scene: Scene;
  readonly clientRequest: StartClientRequest;
  /** Pause wished for now (start's, then each update's); absent: the start request's. */
  readonly onhold?: boolean | undefined;
  /** Mix: the layout now (start's `transcodingConfig` layout, replaced by each `updateLayout`); absent: start's. */
  readonly layout?: LayoutFields | undefined;
  /** Web: the CDN push targets now (start's `rtmp_publish_service` outputs, replaced by each update's); absent: start's. */
  readonly rtmp?: readonly { readonly rtmpUrl: string }[] | undefined;
}

/** reeltime's `recordingConfig.transcription`: the customer's speech-to-text service and the key its POSTs are signed with. */
export interface TranscriptionTarget {
  readonly url: string;
  readonly secret: string;
}

/** reeltime's speaker timeline settings of `recordingConfig` (individual and mix alike). */
export function speakerSettings(rc: StartClientRequest['recordingConfig']): { readonly speakerTimeline: boolean; readonly transcription: TranscriptionTarget | undefined } {
  const t = rc?.transcription;
  return { speakerTimeline: rc?.speakerTimeline === true, transcription: t ? Object.freeze({ url: t.url, secret: t.secret }) : undefined };
}

/** `recordingConfig.maxIdleTime`'s default (individual and mix). */
export const DEFAULT_MAX_IDLE_SECONDS = 30;

/** `recordingConfig.channelType` 1 is a live broadcast; anything else a communication channel. */
export const channelProfile = (channelType: number | undefined): Profile => (channelType === 1 ? 'live' : 'communication');
