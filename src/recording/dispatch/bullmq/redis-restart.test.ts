// Redis restarted (empty: no persistence) in the middle of a session recorded through the queue: the session goes
// on, control and stop still reach the recorder, no webhook is delivered twice (docs/deployment.md).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { recordingClient, rtcToken, storageConfig } from '../../../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../../../recorders/individual/testing/media-checks.ts';
import { startPrivateRedis, type PrivateRedis } from '../../../redis/testing.ts';
import { startCluster, type Cluster } from './cluster-test-kit.ts';
import { waitUntil } from '../../../testing/wait.ts';

const CNAME = 'redis-restart';
const REC_UID = '9421';
let cluster: Cluster;
let redis: PrivateRedis;

before(async () => {
  redis = await startPrivateRedis();
  cluster = await startCluster({ REDIS_URL: redis.url });
});
after(async () => {
  await cluster?.close();
  await redis?.kill();
});

test('Redis restarted mid-session: recording continues, update and stop reach the recorder, webhooks once each', async () => {
  const recorder = await cluster.start([]);
  const api = await cluster.start(['api']);
  await cluster.publish(recorder.url, CNAME, 821);
  const client = recordingClient(api.url);
  const { resourceId, sid } = await client.startRecording(CNAME, REC_UID, {
    token: rtcToken(CNAME, Number(REC_UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  const slices = () => bucketKeys(cluster.bucketDir).filter((k) => k.includes(`/${sid}_`) && /\.ts$/.test(k)).length;
  await waitUntil(() => slices() > 0, { timeoutMs: 120_000, intervalMs: 200, what: 'a slice before the restart' });

  await redis.kill();
  redis = await startPrivateRedis(redis.port);
  const before = slices();
  await waitUntil(() => slices() > before, { timeoutMs: 120_000, intervalMs: 200, what: 'new slices after the restart' });

  assert.equal((await client.api('GET', client.path(resourceId, sid, 'query'))).status, 200);
  const update = await client.api('POST', client.path(resourceId, sid, 'update'), {
    cname: CNAME,
    uid: REC_UID,
    clientRequest: { streamSubscribe: { audioUidList: { unsubscribeAudioUids: ['821'] } }, storageConfig: storageConfig() },
  });
  assert.equal(update.status, 200, JSON.stringify(update.body));
  const stop = await client.api('POST', client.path(resourceId, sid, 'stop'), { cname: CNAME, uid: REC_UID, clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  assert.equal((stop.body.serverResponse as { uploadingStatus: string }).uploadingStatus, 'uploaded');

  await waitUntil(() => cluster.webhooks.some((w) => w.payload.sid === sid && w.eventType === 11), { timeoutMs: 60_000, intervalMs: 200, what: 'event 11' });
  const mine = cluster.webhooks.filter((w) => w.payload.sid === sid);
  assert.equal(new Set(mine.map((w) => w.noticeId)).size, mine.length, 'no webhook delivered twice');
});
