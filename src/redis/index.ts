// Redis, when REDIS_URL is set: the connection, the message bus between processes. Without it the same
// interfaces run in this process (docs/deployment.md).
export { parseRedisConfig, type RedisConfig } from './config.ts';
export { openRedis, redactRedisUrl, type RedisConnection } from './connection.ts';
export { inProcessBus, redisBus, type BusHandler, type MessageBus } from './bus.ts';
