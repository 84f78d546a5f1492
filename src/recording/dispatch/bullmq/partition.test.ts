// A recorder cut off from Redis and PostgreSQL (its connections go through TCP proxies the test turns into black
// holes, as a network partition does) while it records: once its lease has run out it hands nothing more to the
// bucket, the other recorder takes the session over (event 12, bak0_ files), and the two never write together,
// also after the partition heals (docs/deployment.md, "Failover and fencing"). Never both is about recording: files
// handed to the uploader before the lease ran out may still reach the bucket after the heal.
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { after, before, test } from 'node:test';
import { parseUserFileName } from '../../../media/index.ts';
import { recordingClient } from '../../../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../../../recorders/individual/testing/media-checks.ts';
import { startTcpProxy, type TcpProxy, TEST_PG_URL, waitUntil } from '../../../testing/index.ts';
import { startCluster, startIndividualHls, type Cluster } from './cluster-test-kit.ts';
import { TEST_REDIS_URL } from '../../../redis/testing.ts';

const CNAME = 'partition';
const REC_UID = '9451';
const PUBLISHER = 851;
const LEASE_S = 6;
let cluster: Cluster;
let pg: TcpProxy;
let redis: TcpProxy;

before(async () => {
  pg = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
  redis = await startTcpProxy(Number(new URL(TEST_REDIS_URL).port || 6379));
  cluster = await startCluster({ REELTIME_RECORDING_DISPATCH_LEASE_SECOND: String(LEASE_S) });
});
after(async () => {
  await cluster?.close();
  await pg?.close();
  await redis?.close();
});

test('partitioned recorder: stops writing after its lease, the other takes over, never both write', async (t) => {
  const channel = await cluster.start(['channel']);
  const api = await cluster.start(['api']);
  // The first recorder reaches Redis and PostgreSQL only through the proxies.
  await cluster.start(['recorder'], { env: { DATABASE_URL: pg.via(cluster.databaseUrl), REDIS_URL: redis.via(cluster.redisUrl) } });
  await cluster.publish(channel.url, CNAME, PUBLISHER);
  const client = recordingClient(api.url);
  const { resourceId, sid } = await startIndividualHls(client, CNAME, REC_UID);
  // Slices of the first recorder (sid_...) and of the one that takes over (bak0_sid_...), with the UTC start in their
  // names: when they were recorded, whenever they were uploaded.
  const slices = (firstOnes: boolean) =>
    bucketKeys(cluster.bucketDir)
      .filter((k) => k.endsWith('.ts') && (firstOnes ? k.includes(`/${sid}_`) : k.includes(`/bak0_${sid}_`)))
      .map((k) => ({ k, startMs: parseUserFileName(basename(k))?.startMs ?? Number.NaN }));
  await waitUntil(() => slices(true).length > 0, { timeoutMs: 120_000, intervalMs: 200, what: 'a slice of the first recorder' });
  await cluster.start(['recorder']);

  pg.cut('blackhole');
  redis.cut('blackhole');
  const cutAt = Date.now();
  const failover = await waitUntil(() => cluster.webhooks.find((w) => w.payload.sid === sid && w.eventType === 12), { timeoutMs: 120_000, intervalMs: 200, what: 'event 12' });
  const takenOverAt = Date.now();
  t.diagnostic(`taken over ${((takenOverAt - cutAt) / 1000).toFixed(1)} s after the partition (lease ${LEASE_S} s)`);
  const lease = await cluster.db.db.selectFrom('recording_leases').selectAll().where('resource_id', '=', resourceId).executeTakeFirstOrThrow();
  assert.equal(lease.epoch, 2);
  assert.notEqual(String(failover.payload.details.newUid), REC_UID);

  await waitUntil(() => slices(false).length > 0, { timeoutMs: 120_000, intervalMs: 200, what: 'bak0_ slices of the recorder that took over' });
  // The partition heals: the first recorder finds its lease gone and stays fenced.
  pg.restore();
  redis.restore();
  const laterSlices = slices(false).length;
  await waitUntil(() => slices(false).length > laterSlices, { timeoutMs: 120_000, intervalMs: 200, what: 'more bak0_ slices after the heal' });

  // Never both: the fenced recorder began no slice after its lease ran out (renewed before the cut at the latest),
  // and its last slice began before the other's first. Slices it handed to the uploader before that may reach the
  // bucket later (after the heal), as the docs say: so slices are compared by the UTC start in their names.
  const leaseEnd = cutAt + LEASE_S * 1000;
  const lateSlices = () => slices(true).filter((s) => s.startMs > leaseEnd);
  assert.deepEqual(lateSlices(), [], 'slices the fenced recorder began after its lease ran out');
  const lastOfFirst = Math.max(...slices(true).map((s) => s.startMs));
  const firstOfSecond = Math.min(...slices(false).map((s) => s.startMs));
  t.diagnostic(`last slice of the fenced recorder began ${((lastOfFirst - cutAt) / 1000).toFixed(1)} s after the cut; the other's first ${((firstOfSecond - cutAt) / 1000).toFixed(1)} s`);
  assert.ok(lastOfFirst < firstOfSecond, 'the fenced recorder stopped before the other began');

  const stop = await client.api('POST', client.path(resourceId, sid, 'stop'), { cname: CNAME, uid: REC_UID, clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const list = (stop.body.serverResponse as { fileList: { fileName: string }[] }).fileList.map((f) => f.fileName);
  assert.ok(list.some((f) => f.includes(`/bak0_${sid}_`)), list.join('\n'));
  assert.equal((await cluster.db.db.selectFrom('recording_leases').select('epoch').where('resource_id', '=', resourceId).executeTakeFirstOrThrow()).epoch, 2);

  await waitUntil(() => cluster.webhooks.some((w) => w.payload.sid === sid && w.eventType === 11), { timeoutMs: 60_000, intervalMs: 200, what: 'event 11' });
  const mine = cluster.webhooks.filter((w) => w.payload.sid === sid);
  assert.equal(new Set(mine.map((w) => w.noticeId)).size, mine.length, 'no webhook delivered twice');
  assert.deepEqual(lateSlices(), [], 'slices the fenced recorder began after its lease ran out (uploaded late)');
  assert.ok(slices(true).every((s) => Number.isFinite(s.startMs)), 'every slice name carries its UTC start');
  assert.equal(mine.filter((w) => w.eventType === 12).length, 1, 'one event 12');
});
