export { createChannelModule, type ChannelModule, type ChannelModuleOptions, type RecorderChannelView } from './module.ts';
export type { ChannelConfig } from './config.ts';
export { configuredApps, type AppLookup, type ChannelApp } from './apps.ts';
export type { LocalPublishHandle, LocalPublishParams, SfuTestHooks, TapHandle, TapParams } from './sfu.ts';
export type { LayerChoice, TapPacketListener, TrackCodec } from './webrtc/index.ts';
export { CHANNEL_ERRORS, ChannelError, type ChannelErrorCode } from './errors.ts';
export type {
  ChannelEvent,
  ChannelEventKind,
  ChannelEventListener,
  ChannelSnapshot,
  LeaveReason,
  MediaKind,
  ParticipantRole,
  ParticipantSnapshot,
  Profile,
  TrackInfo,
} from './membership/index.ts';
export {
  COLOR,
  FRAME_CODE,
  frameCodeFilters,
  prepareReplay,
  readFrameCode,
  startRtpPublisher,
  startSyntheticPublisher,
  startWhepRelay,
  type PublishInProcess,
  type RtpPublisher,
  type RtpPublisherOptions,
  type SyntheticPublisher,
  type SyntheticPublisherOptions,
  type WhepRelayOptions,
} from './publisher/index.ts';
export {
  startLoopbackStun,
  whepSubscribe,
  whipPublish,
  WhipHttpError,
  type LoopbackStun,
  type WhepSubscriber,
  type WhepSubscribeOptions,
  type WhipPublisher,
  type WhipPublishOptions,
} from './client/index.ts';
export { loopbackClientConfig, TAP_AUDIO_LEVEL_ID } from './webrtc/index.ts';
