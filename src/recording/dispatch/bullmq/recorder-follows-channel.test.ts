// Channels on channel nodes, recording on a recorder-only process: a WHIP POST to the wrong channel node is
// redirected (307) to the owner and published there; a `reeltime recorder` process finds the owner through the
// placement directory in Redis and records from it (docs/deployment.md, "Channels across nodes").
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { APP, recordingClient, rtcToken } from '../../../recorders/individual/testing/harness.ts';
import { bucketKeys, probe } from '../../../recorders/individual/testing/media-checks.ts';
import { startCluster, startIndividualHls, type Cluster } from './cluster-test-kit.ts';
import { waitUntil } from '../../../testing/wait.ts';

const CNAME = 'followed';
const REC_UID = '9431';
let cluster: Cluster;

before(async () => {
  cluster = await startCluster();
});
after(async () => {
  await cluster?.close();
});

test('WHIP to the wrong channel node → 307 → published on the owner; a recorder on a third process records it', async () => {
  const [a, b] = await Promise.all([cluster.start(['channel']), cluster.start(['channel'])]);
  const [api] = await Promise.all([cluster.start(['api']), cluster.start(['recorder'])]);

  // The first publisher makes A the owner; the second one posts its WHIP to B and is sent to A.
  await cluster.publish(a.url, CNAME, 831);
  const raw = await fetch(`${b.url}/rtc/v1/apps/${APP}/channels/${CNAME}/whip?uid=7`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', authorization: `Bearer ${rtcToken(CNAME, 7)}` },
    body: 'v=0\r\n',
    redirect: 'manual',
  });
  assert.equal(raw.status, 307);
  assert.ok(raw.headers.get('location')?.startsWith(`${a.url}/`), String(raw.headers.get('location')));
  await raw.body?.cancel();
  const viaB = await cluster.publish(b.url, CNAME, 832);
  assert.ok(viaB.whip.location.startsWith(`${a.url}/`), viaB.whip.location);

  const client = recordingClient(api.url);
  const { resourceId, sid } = await startIndividualHls(client, CNAME, REC_UID);
  const slicesOf = (uid: number) => bucketKeys(cluster.bucketDir).filter((k) => k.includes(`/${sid}_${CNAME}__uid_s_${uid}__`) && /\.ts$/.test(k));
  await waitUntil(() => slicesOf(831).length > 0 && slicesOf(832).length > 0, { timeoutMs: 120_000, intervalMs: 200, what: 'slices of both publishers in the bucket' });

  // The recorder joined A as a subscriber (membership on the owner lists its uid).
  const members = await fetch(`${a.url}/rtc/v1/apps/${APP}/channels/${CNAME}?uid=99&token=${encodeURIComponent(rtcToken(CNAME, 99, 2))}`);
  const body = (await members.json()) as { participants: { uid: number; subscribedTo: number[] }[] };
  const self = body.participants.find((p) => p.uid === Number(REC_UID));
  assert.deepEqual([...(self?.subscribedTo ?? [])].sort(), [831, 832], JSON.stringify(body));

  const stop = await client.api('POST', client.path(resourceId, sid, 'stop'), { cname: CNAME, uid: REC_UID, clientRequest: {} });
  assert.equal(stop.status, 200, JSON.stringify(stop.body));
  const server = stop.body.serverResponse as { fileList: { fileName: string; uid: string }[]; uploadingStatus: string };
  assert.equal(server.uploadingStatus, 'uploaded');
  for (const uid of ['831', '832']) {
    const playlists = server.fileList.filter((f) => f.uid === uid && f.fileName.endsWith('.m3u8'));
    assert.ok(playlists.length > 0, `a playlist for ${uid}: ${JSON.stringify(server.fileList)}`);
    const codecs = new Set<string>();
    for (const f of playlists) {
      const p = await probe(join(cluster.bucketDir, f.fileName));
      assert.ok(p.duration > 1, `${f.fileName} lasts ${p.duration} s`);
      for (const c of p.codecs) codecs.add(c);
    }
    assert.ok(codecs.has('h264') && (codecs.has('aac') || codecs.has('opus')), `${uid}: ${[...codecs].join(',')}`);
  }
});
