/**
 * Channel node processes for the cross-node tests: each `reeltime channel` on one Redis under the test's own key
 * prefix, with its own data dir; `close` ends them, removes the dirs and the keys.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteTestKeys, TEST_REDIS_URL, testRedisPrefix } from '../../redis/testing.ts';
import { startServerProcess, type ServerProcess } from '../../testing/index.ts';

export interface ChannelNodes {
  /** The Redis key prefix the nodes share. */
  readonly prefix: string;
  start(): Promise<ServerProcess>;
  close(): Promise<void>;
}

/** `env` is added to every node's environment (e.g. a short channel lease). */
export function channelNodes(env: Record<string, string> = {}): ChannelNodes {
  const prefix = testRedisPrefix();
  const dirs: string[] = [];
  const procs: ServerProcess[] = [];
  return {
    prefix,
    async start() {
      const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-channel-node-'));
      dirs.push(dataDir);
      const p = await startServerProcess({
        dataDir,
        args: ['channel'],
        env: { REDIS_URL: TEST_REDIS_URL, REELTIME_REDIS_PREFIX: prefix, REELTIME_CHANNEL_IDLE_TIMEOUT_MS: '60000', ...env },
      });
      procs.push(p);
      return p;
    },
    async close() {
      for (const p of procs) await p.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await deleteTestKeys(prefix);
    },
  };
}
