// SIGKILL of the recorder process holding a live individual session: another recorder takes it over (lease epoch 2),
// rejoins with a new uid, sends event 12 and writes bak0_ files; every slice the dead one wrote to the shared volume
// reaches the bucket; query answers 404 while no recorder holds the session (docs/deployment.md, "Failover").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { recordingClient, rtcToken, storageConfig } from '../../../recorders/individual/testing/harness.ts';
import { bucketKeys, waitFor } from '../../../recorders/individual/testing/media-checks.ts';
import type { SyntheticPublisher } from '../../../channel/index.ts';
import { startCluster, type Cluster } from './cluster-test-kit.ts';

const CNAME = 'failover';
const PUBLISHER = 811;
const REC_UID = '9411';
let cluster: Cluster;

before(async () => {
  // A dead node's channel is free again soon, so the publisher can reconnect to the surviving node.
  cluster = await startCluster({ REELTIME_CHANNEL_LEASE_MS: '3000' });
});
after(async () => {
  await cluster?.close();
});

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p, keep) : keep(n) ? [p] : [];
  });
}
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const isSlice = (name: string) => /\.(ts|webm)$/.test(name);

test('SIGKILL of the recorder holding an individual session: the other resumes it within 30 s with a new uid, event 12, bak0_ files, no slice lost', async (t) => {
  // Both recorder nodes share one work volume (recorder work dirs and upload spool): docs/deployment.md.
  const shared = join(cluster.root, 'shared');
  mkdirSync(shared, { recursive: true });
  const first = await cluster.start([], { dataDir: shared });
  const api = await cluster.start(['api']);
  let pub: SyntheticPublisher = await cluster.publish(first.url, CNAME, PUBLISHER);
  const client = recordingClient(api.url);
  const { resourceId, sid } = await client.startRecording(CNAME, REC_UID, {
    token: rtcToken(CNAME, Number(REC_UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  const second = await cluster.start([], { dataDir: shared });
  const lease = async () =>
    cluster.db.db.selectFrom('recording_leases').selectAll().where('resource_id', '=', resourceId).executeTakeFirst();
  assert.equal((await lease())?.epoch, 1);

  // The first recorder has uploaded a slice and is writing the next one when it dies.
  await waitFor(
    () =>
      bucketKeys(cluster.bucketDir).some((k) => k.includes(`/${sid}_`) && isSlice(k)) &&
      filesUnder(join(shared, 'recorder'), isSlice).some((f) => statSync(f).size > 0),
    120_000,
    'an uploaded slice and one on disk',
  );
  first.child.kill('SIGKILL');
  const killedAt = performance.now();
  const written = new Map(
    [...filesUnder(join(shared, 'recorder'), isSlice), ...filesUnder(join(shared, 'spool'), isSlice)]
      .filter((f) => statSync(f).size > 0)
      .map((f) => [sha256(f), f] as const),
  );
  await pub.kill();

  // Once the dead recorder's lease has run out and before the other holds it, query answers 404.
  let switchAnswer: number | undefined;
  const path = client.path(resourceId, sid, 'query');
  await waitFor(
    async () => {
      const l = await lease();
      if (l && l.epoch > 1) return true;
      if (!l || l.expires_at > Date.now()) return false;
      const q = await client.api('GET', path);
      // Counted only when the other recorder had not taken the session before the answer.
      if ((await lease())?.epoch === 1) switchAnswer = q.status;
      return switchAnswer !== undefined;
    },
    60_000,
    'the lease lapsed',
  );

  // The participant reconnects to the surviving node (its channel moved with it).
  pub = await waitFor(
    async () => cluster.publish(second.url, CNAME, PUBLISHER).catch(() => undefined),
    60_000,
    'the publisher on the second node',
  );
  const failover = await waitFor(() => cluster.webhooks.find((w) => w.payload.sid === sid && w.eventType === 12), 60_000, 'event 12');
  const resumedMs = performance.now() - killedAt;
  t.diagnostic(`session resumed ${(resumedMs / 1000).toFixed(1)} s after SIGKILL (event 12 received)`);
  assert.ok(resumedMs < 30_000, `resumed after ${resumedMs} ms`);
  assert.equal(switchAnswer, 404, 'query during the switch');
  const newUid = String(failover.payload.details.newUid);
  assert.match(newUid, /^\d+$/);
  assert.notEqual(newUid, REC_UID);
  assert.equal((await lease())?.epoch, 2);

  await waitFor(
    () => bucketKeys(cluster.bucketDir).some((k) => k.includes(`/bak0_${sid}_`) && isSlice(k)),
    120_000,
    'bak0_ slices after the take-over',
  );
  const stop = await client.api('POST', client.path(resourceId, sid, 'stop'), { cname: CNAME, uid: REC_UID, clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const list = (stop.body.serverResponse as { fileList: { fileName: string }[] }).fileList.map((f) => f.fileName);
  assert.ok(list.some((f) => f.includes(`/${sid}_`)) && list.some((f) => f.includes(`/bak0_${sid}_`)), list.join('\n'));

  const keys = bucketKeys(cluster.bucketDir);
  const inBucket = new Set(keys.filter(isSlice).map((k) => sha256(join(cluster.bucketDir, k))));
  const lost = [...written].filter(([hash]) => !inBucket.has(hash)).map(([, f]) => f);
  assert.deepEqual(lost, [], 'every slice written before the kill is in the bucket');

  const mine = cluster.webhooks.filter((w) => w.payload.sid === sid);
  assert.equal(new Set(mine.map((w) => w.noticeId)).size, mine.length, 'no webhook delivered twice');
  assert.equal(mine.filter((w) => w.eventType === 12).length, 1, 'one event 12');
});
