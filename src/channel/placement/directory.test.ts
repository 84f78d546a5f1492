import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { Redis } from 'ioredis';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import { openRedis, type RedisConnection } from '../../redis/index.ts';
import { deleteTestKeys, requireTestRedis, startPrivateRedis, TEST_REDIS_URL, testRedisPrefix } from '../../redis/testing.ts';
import { startTestServer, waitUntil } from '../../testing/index.ts';
import { redisDirectory, type Placement } from './directory.ts';
import { channelLeaseKey } from './lease.ts';

const log = createLogger('silent');
const prefix = testRedisPrefix();
let raw: Redis;
let conn: RedisConnection;

before(async () => {
  await requireTestRedis();
  raw = new Redis(TEST_REDIS_URL);
  conn = openRedis({ url: TEST_REDIS_URL, prefix }, log);
});
after(async () => {
  raw?.disconnect();
  await conn?.close();
  await deleteTestKeys(prefix);
});

const key = (cname: string) => prefix + channelLeaseKey('app', cname).join(':');

test('lease: claimed once, renewed on the clock, released when empty, then free for another node', async () => {
  const clock = new ManualClock();
  const people = new Map<string, number>();
  const node = (url: string) =>
    redisDirectory({ redis: conn, selfUrl: () => url, leaseMs: 60_000, clock, log, participants: () => people.get(url) ?? 0 });
  const n1 = node('http://n1');
  const n2 = node('http://n2');
  try {
    const here = await n1.claim('app', 'room', async (p) => p);
    assert.deepEqual(here, { kind: 'here' });
    people.set('http://n1', 1);
    assert.equal(await raw.get(key('room')), 'http://n1');
    const there: Placement = await n2.claim('app', 'room', async (p) => p);
    assert.deepEqual(there, { kind: 'elsewhere', ownerUrl: 'http://n1' });
    assert.deepEqual(await n2.owner('app', 'room'), { kind: 'elsewhere', ownerUrl: 'http://n1' });

    // Renewal: the key's remaining time is pulled down by hand, one renewal period restores it.
    await raw.pexpire(key('room'), 5000);
    clock.advance(20_000);
    await waitUntil(async () => (await raw.pttl(key('room'))) > 5000, { what: 'renewed' });

    // Empty on n1: the next round lets it go, and n2 may take it.
    people.set('http://n1', 0);
    // Both nodes have finished their round and armed the next one (Redis answered on other connections first).
    await waitUntil(async () => clock.pendingCount === 2, { what: 'next round armed' });
    clock.advance(20_000);
    await waitUntil(async () => (await raw.get(key('room'))) === null, { what: 'released' });
    assert.equal(await n1.owner('app', 'room'), undefined);
    assert.deepEqual(await n2.claim('app', 'room', async (p) => p), { kind: 'here' });
    assert.equal(await raw.get(key('room')), 'http://n2');
  } finally {
    await n1.close();
    await n2.close();
  }
  // Closing a node lets its channels go at once.
  assert.equal(await raw.get(key('room')), null);
});

test('a join while Redis is down is refused with 503 placement_unavailable, not hosted blindly', async () => {
  const redis = await startPrivateRedis();
  const s = await startTestServer({ roles: ['channel'], env: { REDIS_URL: redis.url, REELTIME_REDIS_PREFIX: prefix } });
  try {
    await redis.kill();
    const APP = '970CA35de60c44645bbae8a215061b33';
    const token = buildRtcTokenWithUid(APP, '5CFd2fd1755d40ecb72977518be15d3b', 'down', 1, 1, 600, 600);
    const res = await fetch(`${s.url}/rtc/v1/apps/${APP}/channels/down/whip?uid=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${token}` },
      body: 'v=0\r\n',
    });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '2');
    assert.equal(((await res.json()) as { error: string }).error, 'placement_unavailable');
  } finally {
    await s.close();
    await redis.kill();
  }
});

test('lease lost with Redis (restart without data): the owner takes it back; taken by another node: let go', async () => {
  const clock = new ManualClock();
  const n1 = redisDirectory({ redis: conn, selfUrl: () => 'http://n1', leaseMs: 60_000, clock, log, participants: () => 1 });
  try {
    await n1.claim('app', 'lost', async (p) => p);
    await raw.del(key('lost'));
    clock.advance(20_000);
    await waitUntil(async () => (await raw.get(key('lost'))) === 'http://n1', { what: 'taken back' });

    // Another node got it meanwhile (a partition longer than the lease): n1 stops renewing it.
    await waitUntil(async () => clock.pendingCount === 1, { what: 'next round armed' });
    await raw.set(key('lost'), 'http://n3', 'PX', 60_000);
    clock.advance(20_000);
    await waitUntil(async () => clock.pendingCount === 1, { what: 'next round armed' });
    await raw.pexpire(key('lost'), 5000);
    clock.advance(20_000);
    await waitUntil(async () => clock.pendingCount === 1, { what: 'next round armed' });
    assert.equal(await raw.get(key('lost')), 'http://n3');
    assert.ok((await raw.pttl(key('lost'))) <= 5000, 'n1 no longer renews a lease that is not its own');
  } finally {
    await n1.close();
  }
  assert.equal(await raw.get(key('lost')), 'http://n3', 'closing n1 leaves n3’s lease alone');
  await raw.del(key('lost'));
});
