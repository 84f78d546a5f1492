import { Redis } from 'ioredis';
import type { Clock } from '../../../clock/index.ts';
import type { Logger } from '../../../log/index.ts';
import { redactRedisUrl, type MessageBus } from '../../../redis/index.ts';
import type { LeaseStore } from './lease.ts';
import type { WorkerRegistry } from './registry.ts';
import type { DispatchSettings } from './settings.ts';

/** What both sides of queue-backed dispatch (API and recorder processes) are built from. */
export interface QueueContext {
  readonly redisUrl: string;
  /** The deployment's Redis prefix (`redis.prefix`); BullMQ keys go under `<prefix>bull`. */
  readonly redisPrefix: string;
  readonly bus: MessageBus;
  readonly clock: Clock;
  readonly log: Logger;
  readonly settings: DispatchSettings;
  readonly leases: LeaseStore;
  /** Live recorders and their labels (region, id). */
  readonly workers: WorkerRegistry;
}

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
