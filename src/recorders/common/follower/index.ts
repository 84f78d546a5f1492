export { ChannelFollower, type ChannelFollowerDeps, type FollowerHooks, type SessionEndReason } from './channel-follower.ts';
export { channelSource, ChannelRefusal, type ChannelSource, type ChannelSourceOptions, type MediaPath, type MediaSubscription, type WhepPeer } from './channel-source.ts';
export { FollowingSession, type FollowingSessionDeps } from './following-session.ts';
export { IdleTimer } from './idle-timer.ts';
export { planSubscriptions, type CurrentSubscriptions, type Membership, type SubscriptionPlan, type TrackRef } from './plan.ts';
export { PublisherLinks, type PublisherLinkEvents } from './publisher-links.ts';
export { applyLists, createSubscription, EVERYONE, kindsFor, NOBODY, selects, wants, type Subscription } from './subscription.ts';
