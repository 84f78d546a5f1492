// A session started through one API process, queried and stopped through another, recorded by a recorder process
// that took it from the queue (docs/deployment.md, "Recording dispatch").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { APP, recordingClient, rtcToken, storageConfig } from '../../../recorders/individual/testing/harness.ts';
import { bucketKeys } from '../../../recorders/individual/testing/media-checks.ts';
import { startCluster, type Cluster } from './cluster-test-kit.ts';
import { waitUntil } from '../../../testing/wait.ts';

const CNAME = 'across';
const PUBLISHER = 801;
let cluster: Cluster;

before(async () => {
  cluster = await startCluster();
});
after(async () => {
  await cluster?.close();
});

test('start on API A, query, update and stop on API B, recorded by the recorder process: files in the bucket, webhooks once each', async () => {
  // The recorder reads the channel's membership in its own process (docs/deployment.md): it runs the channel role too.
  const recorder = await cluster.start([]);
  const [a, b] = await Promise.all([cluster.start(['api']), cluster.start(['api'])]);
  await cluster.publish(recorder.url, CNAME, PUBLISHER);

  const { resourceId, sid } = await recordingClient(a.url).startRecording(CNAME, '9401', {
    token: rtcToken(CNAME, 9401, 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  const viaB = recordingClient(b.url);

  // B never saw the start: it answers from the shared store, with what the recorder reported.
  const query = await waitUntil(async () => {
      const q = await viaB.api('GET', viaB.path(resourceId, sid, 'query'));
      const files = (q.body.serverResponse as { fileList?: unknown[] } | undefined)?.fileList;
      return q.status === 200 && Array.isArray(files) && files.length > 0 ? q : undefined;
    }, { timeoutMs: 120_000, intervalMs: 200, what: 'query on B lists a file' });
  assert.equal(query.body.sid, sid);
  await waitUntil(() => bucketKeys(cluster.bucketDir).some((k) => k.includes(sid) && /\.ts$/.test(k)), { timeoutMs: 120_000, intervalMs: 200, what: 'a slice in the bucket' });

  // update through B reaches the recorder over the bus and is answered once the recorder applied it.
  const update = await viaB.api('POST', viaB.path(resourceId, sid, 'update'), {
    cname: CNAME,
    uid: '9401',
    clientRequest: { streamSubscribe: { audioUidList: { unsubscribeAudioUids: [String(PUBLISHER)] } }, storageConfig: storageConfig() },
  });
  assert.equal(update.status, 200, JSON.stringify(update.body));

  const stop = await viaB.api('POST', viaB.path(resourceId, sid, 'stop'), { cname: CNAME, uid: '9401', clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const server = stop.body.serverResponse as { fileList: { fileName: string }[]; uploadingStatus: string };
  assert.equal(server.uploadingStatus, 'uploaded');
  const keys = bucketKeys(cluster.bucketDir);
  for (const f of server.fileList) assert.ok(keys.some((k) => k.endsWith(f.fileName)), `${f.fileName} in the bucket`);
  assert.ok(server.fileList.some((f) => f.fileName.endsWith('.m3u8')), JSON.stringify(server.fileList));

  // After the stop both API processes answer 404 for the session.
  for (const p of [a, b]) assert.equal((await recordingClient(p.url).api('GET', viaB.path(resourceId, sid, 'query'))).status, 404);

  // Webhooks: the recorder's and the control plane's events, each delivered once, sequences in order.
  await waitUntil(() => cluster.webhooks.some((w) => w.eventType === 11), { timeoutMs: 60_000, intervalMs: 200, what: 'event 11 (session exit)' });
  await new Promise((r) => setTimeout(r, 1000));
  const mine = cluster.webhooks.filter((w) => w.payload.sid === sid);
  assert.ok(mine.every((w) => w.signed));
  assert.equal(new Set(mine.map((w) => w.noticeId)).size, mine.length, 'no webhook delivered twice');
  const sequences = mine.map((w) => w.payload.sequence);
  assert.deepEqual([...sequences].sort((x, y) => x - y), sequences, 'delivered in sequence order');
  assert.equal(new Set(sequences).size, sequences.length, 'no sequence twice');
  const types = new Set(mine.map((w) => w.eventType));
  for (const t of [40, 11]) assert.ok(types.has(t), `event ${t} in ${[...types].join(',')}`);
});

test('no recorder takes the session within the accept timeout: start answers 500 code 502 and the session is over', async () => {
  // A cluster of its own: the recorder of the other test must not take this session.
  const lonely = await startCluster({ REELTIME_RECORDING_DISPATCH_ACCEPT_TIMEOUT_SECOND: '2' });
  try {
    const api = await lonely.start(['api']);
    const client = recordingClient(api.url);
    const base = `/v1/apps/${APP}/cloud_recording`;
    const acq = await client.api('POST', `${base}/acquire`, { cname: 'nobody', uid: '9402', clientRequest: {} });
    const rid = String(acq.body.resourceId);
    const start = await client.api('POST', `${base}/resourceid/${encodeURIComponent(rid)}/mode/individual/start`, {
      cname: 'nobody',
      uid: '9402',
      clientRequest: { token: rtcToken('nobody', 9402, 2), storageConfig: storageConfig(), recordingConfig: { channelType: 0, subscribeUidGroup: 0 } },
    });
    assert.equal(start.status, 500, JSON.stringify(start.body));
    assert.equal(start.body.code, 502);
    const sid = String(start.body.sid ?? 'x');
    assert.equal((await client.api('GET', client.path(rid, sid, 'query'))).status, 404);
  } finally {
    await lonely.close();
  }
});
