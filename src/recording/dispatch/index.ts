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
export { recordingTaskOf } from './recording-task.ts';
export type { RecorderUpdate, SubscriptionRequest, UidLists, UidSelection } from './subscription.ts';
export { recorderUpdate, subscriptionRequest } from './subscription.ts';
