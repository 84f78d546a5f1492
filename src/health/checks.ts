import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { guardedFetch } from '../net/index.ts';
import type { RedisConnection } from '../redis/index.ts';
import type { StorageSettings } from '../storage/index.ts';
import type { ReadinessCheck } from './readiness.ts';

export function databaseCheck(db: Kysely<Database>): ReadinessCheck {
  return {
    name: 'database',
    async probe() {
      await sql`select 1`.execute(db);
      return undefined;
    },
  };
}

export function redisCheck(redis: RedisConnection, timeoutMs: number): ReadinessCheck {
  return {
    name: 'redis',
    probe: async () => ((await redis.ping(timeoutMs)) ? undefined : 'no PONG'),
  };
}

async function writable(dir: string): Promise<boolean> {
  const probe = join(dir, `.readyz-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * What a recorder writes to: its spool, the local bucket when sessions go there, and each configured storage
 * endpoint (any HTTP answer counts: without credentials a bucket answers 403, which still proves it is reachable).
 */
export function storageCheck(config: StorageSettings, timeoutMs: number): ReadinessCheck {
  return {
    name: 'storage',
    async probe() {
      if (!(await writable(config.spoolDir))) return 'spool directory not writable';
      if ((config.routeAllToLocal || config.serveBucket) && !(await writable(config.bucketDir))) {
        return 'local bucket directory not writable';
      }
      for (const [vendor, endpoint] of Object.entries(config.endpoints)) {
        if (!endpoint) continue;
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), timeoutMs);
        try {
          // Endpoints are operator configuration, trusted like the uploaders trust them (private addresses allowed).
          const res = await guardedFetch(endpoint, { method: 'HEAD', signal: abort.signal }, { allowPrivate: true });
          await res.body?.cancel();
        } catch {
          return `storage endpoint of vendor ${vendor} unreachable`;
        } finally {
          clearTimeout(timer);
        }
      }
      return undefined;
    },
  };
}
