// Test helpers: the shared loopback Redis (guarded, a private prefix per test) and a private redis-server to kill.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { spawnChild } from '../process/index.ts';
import { freePort } from '../testing/ports.ts';

/** The Redis every development and CI machine runs on loopback. */
export const TEST_REDIS_URL = process.env.REELTIME_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key/channel prefix no other test uses; tests never FLUSHALL the shared Redis. */
export function testRedisPrefix(): string {
  return `rt-test-${randomBytes(5).toString('hex')}:`;
}

/** Fails with a clear message when the shared test Redis is not running (CI starts it). */
export async function requireTestRedis(url = TEST_REDIS_URL): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
  } catch (e) {
    throw new Error(`this test needs Redis at ${url} (start redis-server): ${(e as Error).message}`);
  } finally {
    r.disconnect();
  }
}

/** Deletes every key under a test prefix (SCAN, never FLUSHALL). */
export async function deleteTestKeys(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  r.on('error', () => undefined);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 200);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

export { freePort };

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: Redis is gone the way a crashed server is. */
  kill(): Promise<void>;
}

/** A redis-server of its own on a free loopback port (or `port`, to restart one), no persistence, dying with the test process. */
export async function startPrivateRedis(port?: number): Promise<PrivateRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawnChild(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited:\n${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
