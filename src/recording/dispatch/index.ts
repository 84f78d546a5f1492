export type {
  Dispatcher,
  EndReason,
  RecordedFile,
  Recorder,
  RecorderHandle,
  RecorderOutcome,
  RecorderReport,
  RecordingMode,
  RecordingTask,
  ResourceLock,
  RtmpStatus,
  StopResult,
  TrackType,
  UploadingStatus,
  WriteFence,
} from './types.ts';
/** The webhook vocabulary recorders speak (owned by recording/vocabulary). */
export * from '../vocabulary/index.ts';
/** A recorder's refusal of a session that the request can fix (400 naming the field). */
export { RecorderRefusedError } from '../lifecycle/index.ts';
export { createInProcessDispatcher } from './in-process.ts';
export { recorderSettingsOf, recordingTaskOf } from './recording-task.ts';
export {
  ACCEPTED_FPS,
  channelProfile,
  DEFAULT_BITRATE_KBPS,
  DEFAULT_CANVAS,
  DEFAULT_CAPTURE_INTERVAL,
  DEFAULT_FPS,
  DEFAULT_MAX_IDLE_SECONDS,
  DEFAULT_MAX_VIDEO_MINUTES,
  DEFAULT_MIX_BITRATE,
  DEFAULT_MIX_SAMPLE_RATE,
  evenCanvas,
  mixLayoutSettings,
  recorderSettings,
  settingsFor,
  type IndividualSettings,
  type MixSettings,
  type PostProcess,
  type RecorderSettings,
  type SettingsSource,
  type StreamMode,
  type TranscriptionTarget,
  type WebSettings,
} from './settings/index.ts';
export type { RecorderUpdate, SubscriptionRequest, UidLists, UidSelection } from './subscription.ts';
export { recorderUpdate, subscriptionRequest } from './subscription.ts';
