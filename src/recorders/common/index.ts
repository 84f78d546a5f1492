export { channelSource, ChannelRefusal, type ChannelSource, type ChannelSourceOptions, type MediaSubscription } from './channel-source.ts';
export {
  ERROR_CODE,
  ERROR_LEVEL,
  EVENT_MODULE,
  LEAVE_CODE,
  RECORDER_EVENTS,
  RECORDER_STATUS,
  recorderSignals,
  WARN_CODE,
  type RecorderEventName,
  type RecorderSignals,
  type RecorderStatusName,
} from './events.ts';
export { fenceUploads } from './fenced-upload.ts';
export { finishUploads } from './finish-uploads.ts';
export { HoldState, type HoldWindow } from './hold.ts';
export { HoldSwitch, type HoldActions } from './hold-switch.ts';
export { HlsTrackWriter, PLAYLIST_CONTENT_TYPE, type ClosedSliceFile, type HlsTrackOptions, type SliceOutcome } from './hls-track.ts';
export { planSubscriptions, type CurrentSubscriptions, type Membership, type SubscriptionPlan, type TrackRef } from './plan.ts';
export { applyLists, createSubscription, EVERYONE, kindsFor, NOBODY, selects, wants, type Subscription } from './subscription.ts';
export { IdleTimer, PROGRESS_INTERVAL_MS, ProgressReporter } from './session-timers.ts';
export { uploadEventReporter } from './upload-events.ts';
export { PublisherLinks, type PublisherLinkEvents } from './publisher-links.ts';
export { nextBackupIndex } from './backup-index.ts';
export { openSessionIO, startInBackground, type LaunchDeps, type SessionIO, type StartableSession } from './launch.ts';
export { meterUploads, registerRecorderMetrics, type RecorderMeter } from './meter.ts';
export { ChannelFollower, type ChannelFollowerDeps, type FollowerHooks, type SessionEndReason } from './follower/index.ts';
export { SessionSignals, type SessionSignalsDeps } from './signals/index.ts';
export { signalSliceOutcome, type SliceStream } from './slice-signals.ts';
