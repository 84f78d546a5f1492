export { ChannelFollower, type ChannelFollowerDeps, type FollowerHooks, type SessionEndReason } from './channel-follower.ts';
