// Two real channel node processes on one Redis: WHIP and WHEP to the wrong node are redirected to the owner;
// when the owner dies, its lease expires and the channel is re-created where the publisher reconnects.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { Redis } from 'ioredis';
import { requireTestRedis, TEST_REDIS_URL } from '../../redis/testing.ts';
import type { ServerProcess } from '../../testing/index.ts';
import { whepSubscribe } from '../client/index.ts';
import { startSyntheticPublisher, type SyntheticPublisher } from '../publisher/index.ts';
import { channelLeaseKey } from './lease.ts';
import { channelNodes } from './testing.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const tok = (cname: string, uid: number, role: 1 | 2 = 1) => buildRtcTokenWithUid(APP, CERT, cname, uid, role, 600, 600);
// Short lease so the dead node's channel moves soon (3 s: a node whose event loop stalls past 1 s on a loaded
// machine lost a 1 s lease while its publisher connected); the test waits for the key, not for a time.
const nodes = channelNodes({ REELTIME_CHANNEL_LEASE_MS: '3000' });
const prefix = nodes.prefix;
let redis: Redis;

before(async () => {
  await requireTestRedis();
  redis = new Redis(TEST_REDIS_URL);
});

after(async () => {
  await nodes.close();
  redis?.disconnect();
});

const owner = (cname: string) => redis.get(prefix + channelLeaseKey(APP, cname).join(':'));

async function participants(node: ServerProcess, cname: string): Promise<number[]> {
  const res = await fetch(`${node.url}/rtc/v1/apps/${APP}/channels/${cname}?uid=99&token=${encodeURIComponent(tok(cname, 99, 2))}`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { participants: { uid: number }[] };
  return body.participants.map((p) => p.uid);
}

test('WHIP and WHEP to the wrong node get 307 to the owner; a dead owner’s channel is re-created where the publisher reconnects', async () => {
  const [a, b] = await Promise.all([nodes.start(), nodes.start()]);
  const cname = 'spread';
  let first: SyntheticPublisher | undefined;
  let again: SyntheticPublisher | undefined;
  try {
    // The first publisher lands on A: A now hosts the channel.
    first = await startSyntheticPublisher({ baseUrl: a.url, appId: APP, cname, uid: 1, token: tok(cname, 1), width: 160, height: 120, fps: 10 });
    await first.ready;
    assert.equal(await owner(cname), a.url);

    // A bare POST to B shows the redirect itself.
    const raw = await fetch(`${b.url}/rtc/v1/apps/${APP}/channels/${cname}/whip?uid=7`, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', authorization: `Bearer ${tok(cname, 7)}` },
      body: 'v=0\r\n',
      redirect: 'manual',
    });
    assert.equal(raw.status, 307);
    assert.equal(raw.headers.get('location'), `${a.url}/rtc/v1/apps/${APP}/channels/${cname}/whip?uid=7`);
    await raw.body?.cancel();

    // A werift publisher posting WHIP to B is sent to A and publishes there.
    const wrongNode = await startSyntheticPublisher({ baseUrl: b.url, appId: APP, cname, uid: 3, token: tok(cname, 3), width: 160, height: 120, fps: 10 });
    try {
      await wrongNode.ready;
      assert.ok(wrongNode.whip.location.startsWith(`${a.url}/`), wrongNode.whip.location);
      assert.deepEqual((await participants(a, cname)).sort(), [1, 3]);
    } finally {
      await wrongNode.stop();
    }

    // A werift viewer posting WHEP to B is sent to A and receives the publisher's media there.
    const viewer = await whepSubscribe({ endpoint: `${b.url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=2&publisher=1`, token: tok(cname, 2, 2) });
    try {
      assert.ok(viewer.location.startsWith(a.url), viewer.location);
      await viewer.ready;
      await viewer.waitFor(() => viewer.counts.audio > 20, 30_000, 'audio through the owner node');
      // Membership read on B is redirected too; fetch follows it (the token is in the query).
      assert.deepEqual((await participants(b, cname)).sort(), [1, 2]);
    } finally {
      await viewer.close();
    }

    // A dies without a word: nothing renews its lease, Redis expires it.
    a.child.kill('SIGKILL');
    await first.stop().catch(() => undefined);
    first = undefined;
    for (let left = 600; (await owner(cname)) !== null; left--) {
      assert.ok(left > 0, 'the lease of the dead node never expired');
      await new Promise((r) => setTimeout(r, 50));
    }
    // The publisher reconnects through B: the channel is created there.
    again = await startSyntheticPublisher({ baseUrl: b.url, appId: APP, cname, uid: 1, token: tok(cname, 1), width: 160, height: 120, fps: 10 });
    await again.ready;
    assert.equal(await owner(cname), b.url);
    assert.deepEqual(await participants(b, cname), [1]);
  } finally {
    await first?.stop().catch(() => undefined);
    await again?.stop().catch(() => undefined);
  }
});
