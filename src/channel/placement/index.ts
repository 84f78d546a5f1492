// Which channel node hosts each channel (docs/deployment.md, "Channels across nodes").
export { localDirectory, redisDirectory, type ChannelDirectory, type Placement, type RedisDirectoryOptions } from './directory.ts';
export { advertisedUrl, channelLeaseKey, redirectLocation, renewIntervalMs, shouldRelease } from './lease.ts';
