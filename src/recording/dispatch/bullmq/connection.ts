import { Redis } from 'ioredis';
import type { Logger } from '../../../log/index.ts';
import { redactRedisUrl } from '../../../redis/index.ts';

/** BullMQ's own connection: its blocking commands need `maxRetriesPerRequest: null` (BullMQ docs, "Connections"). */
export function bullConnection(url: string, log: Logger, name: string): Redis {
  const r = new Redis(url, { connectionName: name, maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(n * 200, 2000) });
  let down = false;
  r.on('error', (e: Error) => {
    if (!down) log.warn({ redis: redactRedisUrl(url), err: e.message, connection: name }, 'redis connection error');
    down = true;
  });
  r.on('ready', () => void (down = false));
  return r;
}

/** BullMQ key prefix under the deployment's Redis prefix ("reeltime:" → "reeltime:bull"). */
export const bullPrefix = (redisPrefix: string) => `${redisPrefix}bull`;
