export { createChannelModule, type ChannelModule, type ChannelModuleOptions } from './module.ts';
export type { ChannelConfig } from './config.ts';
export { configuredApps, type AppLookup, type ChannelApp } from './apps.ts';
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
export { startSyntheticPublisher, type SyntheticPublisher, type SyntheticPublisherOptions } from './publisher/synthetic.ts';
export { whipPublish, type WhipPublisher, type WhipPublishOptions } from './client/whip-client.ts';
export { whepSubscribe, type WhepSubscriber, type WhepSubscribeOptions } from './client/whep-client.ts';
export { WhipHttpError } from './client/whip-http.ts';
export { startLoopbackStun, type LoopbackStun } from './client/stun-responder.ts';
export { loopbackClientConfig } from './webrtc/index.ts';
