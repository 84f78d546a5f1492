/**
 * Chat delivery across gateway processes (loopback only, bounded): the time from `send` to the recipient's
 * `message` frame, and messages per second with a window in flight, for
 *   baseline: sender and recipient on one gateway process without Redis (in-process delivery), and
 *   cluster:  sender on gateway A, recipient on gateway B, through Redis pub/sub,
 * both on PostgreSQL (a private schema each), measured in the same run.
 * Usage: node --import tsx bench/chat-cluster/index.ts [--messages 500] [--window 32]
 * Needs PostgreSQL and Redis on loopback (scripts/services.sh).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ChatTokenSession, type TextMessage } from '../../src/chat/sdk/index.ts';
import { NodeWebSocket } from '../../src/chat/gateway/test-helpers.ts';
import { deleteTestKeys, requireTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../../src/redis/testing.ts';
import { openTestDatabase, startServerProcess, TEST_PG_URL, type ServerProcess, type TestDatabase } from '../../src/testing/index.ts';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '500' }, window: { type: 'string', default: '32' } } });
const messages = Number(values.messages);
const windowSize = Number(values.window);

await requireTestRedis();
const prefix = testRedisPrefix();
const dirs: string[] = [];
const procs: ServerProcess[] = [];
const dbs: TestDatabase[] = [];

async function gateway(db: TestDatabase, redis: boolean): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-bench-chat-'));
  dirs.push(dataDir);
  const p = await startServerProcess({
    dataDir,
    args: ['chat'],
    env: {
      DATABASE_URL: `${TEST_PG_URL}?schema=${db.location.pgSchema}`,
      REELTIME_CHAT_REST_RATE_LIMIT: '0',
      ...(redis ? { REDIS_URL: TEST_REDIS_URL, REELTIME_REDIS_PREFIX: prefix } : {}),
    },
  });
  procs.push(p);
  return p;
}

interface Peer {
  user: string;
  sess: ChatTokenSession;
  onMessage: (m: TextMessage) => void;
}

async function peer(server: ServerProcess, user: string): Promise<Peer> {
  const p: Peer = { user, sess: undefined as unknown as ChatTokenSession, onMessage: () => undefined };
  p.sess = new ChatTokenSession({
    tokenServerUrl: server.url,
    gatewayUrl: `${server.url.replace(/^http/, 'ws')}/chat/ws`,
    user,
    WebSocket: NodeWebSocket,
    listeners: { onTextMessage: (m) => p.onMessage(m) },
  });
  await p.sess.start();
  return p;
}

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function measure(label: string, from: Peer, to: Peer) {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let waiting: (() => void) | undefined;
  to.onMessage = (m) => {
    const t = sentAt.get(m.text);
    if (t !== undefined) latencies.push(performance.now() - t);
    waiting?.();
  };
  // Warm-up: connections, prepared statements, JIT.
  for (let i = 0; i < 20; i++) {
    const done = new Promise<void>((r) => (waiting = r));
    await from.sess.sendTextMessage(to.user, `warm-${i}`);
    await done;
  }
  latencies.length = 0;
  // 1. One at a time: delivery latency.
  for (let i = 0; i < messages; i++) {
    const text = `${label}-seq-${i}`;
    const done = new Promise<void>((r) => (waiting = r));
    sentAt.set(text, performance.now());
    await from.sess.sendTextMessage(to.user, text);
    await done;
  }
  const seq = [...latencies];
  // 2. A window in flight: throughput.
  let received = 0;
  to.onMessage = () => void received++;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: windowSize }, async () => {
      while (next < messages) {
        next++;
        await from.sess.sendTextMessage(to.user, `${label}-win`);
      }
    }),
  );
  while (received < messages) await new Promise((r) => setTimeout(r, 5));
  const perSecond = messages / ((performance.now() - t0) / 1000);
  return { p50: pct(seq, 0.5), p99: pct(seq, 0.99), perSecond };
}

try {
  const [dbBase, dbCluster] = await Promise.all([openTestDatabase('postgres'), openTestDatabase('postgres')]);
  dbs.push(dbBase, dbCluster);
  const [single, a, b] = await Promise.all([gateway(dbBase, false), gateway(dbCluster, true), gateway(dbCluster, true)]);
  const base = await measure('base', await peer(single, 'alice'), await peer(single, 'bob'));
  const cluster = await measure('cluster', await peer(a, 'alice'), await peer(b, 'bob'));
  const f = (x: number) => x.toFixed(2);
  console.log(`chat delivery, ${messages} messages, window ${windowSize}`);
  console.log(`  baseline (one process, in-process):  p50 ${f(base.p50)} ms  p99 ${f(base.p99)} ms  ${base.perSecond.toFixed(0)} msg/s`);
  console.log(`  cluster (A -> Redis -> B):           p50 ${f(cluster.p50)} ms  p99 ${f(cluster.p99)} ms  ${cluster.perSecond.toFixed(0)} msg/s`);
  console.log(`  ratio cluster/baseline:              p50 ${f(cluster.p50 / base.p50)}x  throughput ${f(cluster.perSecond / base.perSecond)}x`);
} finally {
  for (const p of procs) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const d of dbs) await d.close();
  await deleteTestKeys(prefix);
  process.exit(0);
}
