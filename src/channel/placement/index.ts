// Which channel node hosts each channel (docs/deployment.md, "Channels across nodes").
export {
  channelOwnerUrl,
  localDirectory,
  redisDirectory,
  type ChannelDirectory,
  type Placement,
  type RedisDirectoryOptions,
} from './directory.ts';
export { followChannel, type ChannelFollower, type ChannelView, type FollowerOptions } from './follower.ts';
export { advertisedUrl, channelLeaseKey, redirectLocation, renewIntervalMs, shouldRelease } from './lease.ts';
