export type {
  Dispatcher,
  EndReason,
  RecordedFile,
  Recorder,
  RecorderHandle,
  RecorderOutcome,
  RecorderReport,
  RecordingMode,
  RecordingStatus,
  RecordingTask,
  RtmpStatus,
  StopResult,
  TrackType,
  UploadingStatus,
  WriteFence,
} from './types.ts';
export { RECORDING_STATUSES } from './types.ts';
export { createInProcessDispatcher } from './in-process.ts';
export type { RecorderUpdate, SubscriptionRequest, UidLists, UidSelection } from './subscription.ts';
export { recorderUpdate, subscriptionRequest } from './subscription.ts';
