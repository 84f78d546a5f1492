import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../../../redis/index.ts';
import { KeyedLock } from '../../lock.ts';
import type { ResourceLock } from '../types.ts';

/** A holder that dies mid-mutation frees the resource after this long; a mutation is one read and one write. */
const HOLD_MS = 15_000;
/** Give up waiting after this long (a Redis outage): the mutation fails rather than hanging a request. */
const WAIT_MS = 30_000;
const POLL_MS = 15;

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * One mutation per resource at a time across every process (SET NX PX on Redis), queued in this process first so
 * local callers do not poll against each other.
 */
export function redisResourceLock(redis: RedisConnection): ResourceLock {
  const local = new KeyedLock();
  return {
    run<T>(resourceId: string, fn: () => Promise<T>): Promise<T> {
      return local.run(resourceId, async () => {
        const key = redis.key('recording', 'lock', resourceId);
        const token = randomBytes(12).toString('hex');
        const giveUp = Date.now() + WAIT_MS;
        while ((await redis.commands.set(key, token, 'PX', HOLD_MS, 'NX')) !== 'OK') {
          if (Date.now() > giveUp) throw new Error('timed out waiting for the session lock');
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
        try {
          return await fn();
        } finally {
          await redis.commands.eval(RELEASE, 1, key, token).catch(() => undefined);
        }
      });
    },
  };
}
