import { ConfigError, type CoreConfig, type ConfigSource } from '../config/index.ts';

/** Settings of the Redis connection (file section "redis", environment REELTIME_REDIS_*); the URL is core `redisUrl`. */
export interface RedisConfig {
  /** redis:// URL from REDIS_URL; undefined runs every coordination in this process (the embedded default). */
  readonly url: string | undefined;
  /**
   * Prefix of every key and pub/sub channel reeltime uses (`redis.prefix`), so deployments (and tests) can share one
   * Redis without seeing each other.
   */
  readonly prefix: string;
}

export function parseRedisConfig(src: ConfigSource, core: CoreConfig): RedisConfig {
  const prefix = src.string('redis.prefix', 'REELTIME_REDIS_PREFIX', 'reeltime:');
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
    throw new ConfigError('REELTIME_REDIS_PREFIX (redis.prefix)', 'must be 1-64 characters of A-Z a-z 0-9 _ . : -');
  }
  return { url: core.redisUrl, prefix };
}
