// Two real chat gateway processes on one PostgreSQL and one Redis: a message reaches the recipient's connection
// whichever process holds it (docs/chat.md, "Across processes"). The tests share one pair of gateways on a Redis of
// their own (each uses its own users): a gateway process costs seconds of CPU to start, and what each test checks
// is delivery across them and their recovery when that Redis restarts, not a fresh start.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startPrivateRedis, testRedisPrefix, type PrivateRedis } from '../../redis/testing.ts';
import { openTestDatabase, type ServerProcess, startServerProcess, TEST_PG_URL, type TestDatabase, waitUntil } from '../../testing/index.ts';
import { ChatTokenSession, fetchUserToken, type TextMessage } from '../sdk/index.ts';
import { NodeWebSocket, RawClient } from './test-helpers.ts';

const prefix = testRedisPrefix();
let db: TestDatabase;
const dirs: string[] = [];
const procs: ServerProcess[] = [];
let redis: PrivateRedis;
let a: ServerProcess;
let b: ServerProcess;

before(async () => {
  db = await openTestDatabase('postgres').catch((e: Error) => {
    throw new Error(`this test needs PostgreSQL at ${TEST_PG_URL}: ${e.message}`);
  });
  redis = await startPrivateRedis();
  [a, b] = await Promise.all([gateway(), gateway()]);
});

after(async () => {
  await Promise.all(procs.map((p) => p.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await db?.close();
  await redis?.kill();
});

async function gateway(): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-chat-gw-'));
  dirs.push(dataDir);
  const p = await startServerProcess({
    dataDir,
    args: ['chat'],
    env: {
      DATABASE_URL: `${TEST_PG_URL}?schema=${db.location.pgSchema}`,
      REDIS_URL: redis.url,
      REELTIME_REDIS_PREFIX: prefix,
    },
  });
  procs.push(p);
  return p;
}

function client(server: ServerProcess, user: string) {
  const received: TextMessage[] = [];
  const sess = new ChatTokenSession({
    tokenServerUrl: server.url,
    gatewayUrl: `${server.url.replace(/^http/, 'ws')}/chat/ws`,
    user,
    WebSocket: NodeWebSocket,
    listeners: { onTextMessage: (m) => received.push(m) },
  });
  return { sess, received };
}

test('a message from a user on gateway A reaches a user on gateway B, and back; offline messages wait in PostgreSQL', async () => {
  const alice = client(a, 'alice');
  const bob = client(b, 'bob');
  try {
    await alice.sess.start();
    await bob.sess.start();
    const sent = await alice.sess.sendTextMessage('bob', 'hello from A');
    await waitUntil(() => bob.received.length === 1, { what: 'bob on B receives' });
    assert.deepEqual(bob.received[0], { id: sent.id, from: 'alice', to: 'bob', text: 'hello from A', timestamp: sent.timestamp });
    await bob.sess.sendTextMessage('alice', 'hello from B');
    await waitUntil(() => alice.received.length === 1, { what: 'alice on A receives' });
    assert.equal(alice.received[0]!.text, 'hello from B');

    // Bob leaves B; what alice sends meanwhile is stored, and reaches him when he logs in on A.
    bob.sess.stop();
    await alice.sess.sendTextMessage('bob', 'while you were away');
    const bobOnA = client(a, 'bob');
    try {
      await bobOnA.sess.start();
      await waitUntil(() => bobOnA.received.length === 1, { what: 'stored message' });
      assert.equal(bobOnA.received[0]!.text, 'while you were away');
    } finally {
      bobOnA.sess.stop();
    }
    // The users API of both processes reads one PostgreSQL: both users exist exactly once there.
    const rows = await db.db.selectFrom('chat_users').select('username').orderBy('username').execute();
    assert.deepEqual(rows.map((r) => r.username), ['alice', 'bob']);
  } finally {
    alice.sess.stop();
    bob.sess.stop();
  }
});

test('Redis restarted between two messages: gateways resubscribe and live delivery resumes', async () => {
  const carol = client(a, 'carol');
  const dave = client(b, 'dave');
  const probe = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  probe.on('error', () => undefined);
  // Dave's gateway holds one subscription for him; wait for it on whichever Redis runs now.
  const daveSubscribed = async () => {
    for (let i = 0; i < 400; i++) {
      const r = (await probe.call('PUBSUB', 'NUMSUB', `${prefix}bus:chat:reeltime#default:user:dave`).catch(() => [])) as [string, number] | [];
      if (Number(r[1] ?? 0) >= 1) return;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error('dave never resubscribed');
  };
  try {
    await carol.sess.start();
    await dave.sess.start();
    await carol.sess.sendTextMessage('dave', 'before');
    await waitUntil(() => dave.received.length === 1, { what: 'before' });

    await redis.kill();
    redis = await startPrivateRedis(redis.port);
    await daveSubscribed();
    await carol.sess.sendTextMessage('dave', 'after');
    await waitUntil(() => dave.received.length === 2, { what: 'after' });
    assert.deepEqual(dave.received.map((m) => m.text), ['before', 'after']);
  } finally {
    carol.sess.stop();
    dave.sess.stop();
    probe.disconnect();
  }
});

test('a login while Redis is down is refused (internal, close 1001) and succeeds once Redis is back', async () => {
  const wsUrl = `${a.url.replace(/^http/, 'ws')}/chat/ws`;
  const token = await fetchUserToken(a.url, 'erin');
  await redis.kill();
  const refused = await RawClient.connect(wsUrl);
  refused.send({ type: 'login', user: 'erin', token });
  const failed = await refused.next('login-failed');
  assert.equal(failed.code, 'internal');
  await waitUntil(() => refused.closed !== undefined, { what: 'closed' });
  assert.equal(refused.closed!.code, 1001);

  redis = await startPrivateRedis(redis.port);
  const accepted = await RawClient.connect(wsUrl);
  try {
    accepted.send({ type: 'login', user: 'erin', token });
    assert.equal((await accepted.next('login-ok')).user, 'erin');
  } finally {
    accepted.ws.close();
  }
});
