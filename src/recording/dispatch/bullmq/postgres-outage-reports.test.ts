// The recorder process cut off from PostgreSQL (a TCP proxy in front of the shared server refuses its connections)
// while a slice closes and while its session stops on its own (the publisher leaves, maxIdleTime): the reports and
// history events it raised meanwhile are kept in the process and written once the database answers, so the sessions
// API of another process shows the complete file list and every event (docs/deployment.md, "What an outage of
// Redis or PostgreSQL does"). The API and channel processes keep their own connections.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { APP, rtcToken, recordingClient, storageConfig } from '../../../recorders/individual/testing/harness.ts';
import { bucketKeys, probe } from '../../../recorders/individual/testing/media-checks.ts';
import { type ServerProcess, startTcpProxy, type TcpProxy, TEST_PG_URL, waitUntil } from '../../../testing/index.ts';
import { startCluster, type Cluster } from './cluster-test-kit.ts';

const CNAME = 'pg-outage-reports';
const REC_UID = '9442';
const PUBLISHER = 842;
let cluster: Cluster;
let pg: TcpProxy;
let channel: ServerProcess;
let api: ServerProcess;

before(async () => {
  pg = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
  // A lease well beyond the outage: the recorder keeps its session through it.
  cluster = await startCluster({ REELTIME_RECORDING_DISPATCH_LEASE_SECOND: '60' });
  channel = await cluster.start(['channel']);
  api = await cluster.start(['api']);
});
after(async () => {
  await cluster?.close();
  await pg?.close();
});

interface Detail {
  readonly state: string;
  readonly files: { fileName: string }[];
  readonly events: { eventType: number; createdAt: number; details: Record<string, unknown> }[];
}

test('recorder cut off from PostgreSQL while a slice closes and its session stops: file list and history complete afterwards', async (t) => {
  const dataDir = join(cluster.root, 'recorder-reports');
  const recorder = await cluster.start(['recorder'], { dataDir, env: { DATABASE_URL: pg.via(cluster.databaseUrl), REELTIME_LOG_LEVEL: 'info' } });
  t.after(async () => {
    pg.restore();
    await recorder.close();
  });
  await recordAndEnd(t, recorder, dataDir);
});

/** A process's log, one short line per entry (time, level, message, error), stack traces left out. */
function logLines(output: string): string {
  return output
    .split('\n')
    .map((l) => {
      try {
        const e = JSON.parse(l) as { time?: number; level?: number; msg?: string; err?: unknown; sid?: string };
        const err = typeof e.err === 'string' ? e.err : (e.err as { message?: string } | undefined)?.message;
        return `${new Date(e.time ?? 0).toISOString().slice(11, 23)} ${e.level} ${e.msg}${err ? `: ${err}` : ''}`;
      } catch {
        return l.slice(0, 200);
      }
    })
    .filter((l) => l.trim() !== '')
    .slice(-150)
    .join('\n');
}

/** The items of `name`'s outbox journals under a recorder's data dir that are still kept (src/outbox). */
function journalled(dataDir: string, name: string): Record<string, unknown>[] {
  const dir = join(dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  const lines = readdirSync(dir)
    .filter((f) => f.startsWith(`${name}.`))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { op: string; id: string; item?: Record<string, unknown> });
  const done = new Set(lines.filter((l) => l.op === 'done').map((l) => l.id));
  return lines.filter((l) => l.op === 'kept' && !done.has(l.id) && l.item).map((l) => l.item!);
}

async function recordAndEnd(t: TestContext, recorder: ServerProcess, dataDir: string): Promise<void> {
  const pub = await cluster.publish(channel.url, CNAME, PUBLISHER);
  const client = recordingClient(api.url);
  const { sid } = await client.startRecording(CNAME, REC_UID, {
    token: rtcToken(CNAME, Number(REC_UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2, maxIdleTime: 5 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  const detail = async (): Promise<Detail | undefined> => {
    const r = await client.api('GET', `/v1/apps/${APP}/cloud_recording/sessions/${sid}`);
    return r.status === 200 ? (r.body as unknown as Detail) : undefined;
  };
  const slices = () => bucketKeys(cluster.bucketDir).filter((k) => k.includes(`/${sid}_`) && /\.ts$/.test(k));
  await waitUntil(() => slices().length > 0, { timeoutMs: 120_000, intervalMs: 200, what: 'a slice before the outage' });

  const cutAt = Date.now();
  pg.cut('reset');
  // The publisher leaves: the recorder ends its streams (the last slices close, events 43/44 state 1) and, after
  // maxIdleTime, the session itself, all while its database is away.
  await pub.stop();
  // The streams' end and, maxIdleTime later, the recorder's leave (41: its idle end has begun) are kept in its
  // journal while the database is away. The end itself waits for the database: the session's last uploads need
  // their manifest rows (docs/deployment.md).
  await waitUntil(
    () => {
      const events = journalled(dataDir, 'recording-events') as unknown as Detail['events'][number][];
      return events.some((e) => e.eventType === 41) && [43, 44].every((type) => events.some((e) => e.eventType === type && e.details.state === 1));
    },
    { timeoutMs: 90_000, intervalMs: 200, what: "the streams' end and the recorder's leave kept in its journal" },
  ).catch((e: Error) => {
    t.diagnostic(`recorder output:\n${logLines(recorder.output())}`);
    throw e;
  });
  t.diagnostic(`streams' end and leave kept ${Date.now() - cutAt} ms after the cut`);
  const during = await detail();
  assert.ok(during, 'the API process (its own connection) answers');
  assert.equal(during.state, 'live', 'the recorder could not report its end');
  // Raised during the outage, so not stored yet (a starved publisher may have paused before the cut: that one is).
  assert.deepEqual(during.events.filter((e) => e.eventType === 43 && e.details.state === 1 && e.createdAt >= cutAt), [], 'not stored yet');
  const restoredAt = Date.now();
  pg.restore();

  const ended = await waitUntil(async () => {
    const d = await detail();
    return d?.state === 'ended' ? d : undefined;
  }, { timeoutMs: 120_000, intervalMs: 200, what: 'the session ended in the store' }).catch((e: Error) => {
    t.diagnostic(`recorder output:\n${logLines(recorder.output())}`);
    throw e;
  });
  t.diagnostic(`ended in the store ${Date.now() - restoredAt} ms after the database came back`);

  // The complete file list: both playlists, and every slice in the bucket is in one of them.
  const playlists = ended.files.map((f) => f.fileName).filter((f) => f.endsWith('.m3u8'));
  assert.deepEqual(
    playlists.map((p) => p.replace(/^.*__uid_e_/, '')).sort(),
    ['audio.m3u8', 'video.m3u8'],
    JSON.stringify(ended.files),
  );
  const listed = new Set<string>();
  for (const key of playlists) {
    for (const line of readFileSync(join(cluster.bucketDir, key), 'utf8').split('\n')) {
      if (line.trim() && !line.startsWith('#')) listed.add(join(dirname(key), line.trim()));
    }
  }
  assert.deepEqual(slices().filter((k) => !listed.has(k)), [], 'slices no playlist lists');
  for (const p of playlists) assert.ok((await probe(join(cluster.bucketDir, p))).duration > 1, `${p} plays`);

  // The history: the streams' end, raised during the outage (sendts/createdAt then), and the session's end.
  await waitUntil(async () => (await detail())?.events.some((e) => e.eventType === 11), { timeoutMs: 60_000, intervalMs: 200, what: 'event 11 in the history' });
  const events = (await detail())!.events;
  t.diagnostic(`history: ${events.map((e) => `${e.eventType}${e.details.state !== undefined ? `/${String(e.details.state)}` : ''}`).join(' ')}`);
  for (const type of [43, 44]) {
    const gone = events.filter((e) => e.eventType === type && e.details.state === 1 && e.createdAt >= cutAt);
    assert.equal(gone.length, 1, `event ${type} state 1 of the outage listed once`);
    assert.ok(gone[0]!.createdAt >= cutAt && gone[0]!.createdAt < restoredAt, `event ${type} raised during the outage`);
  }
  assert.ok(events.some((e) => e.eventType === 31 || e.eventType === 32), 'the upload result (31/32)');

  // And every webhook once, in order.
  await waitUntil(() => cluster.webhooks.some((w) => w.payload.sid === sid && w.eventType === 11), { timeoutMs: 60_000, intervalMs: 200, what: 'event 11 delivered' });
  await new Promise((r) => setTimeout(r, 1000));
  const mine = cluster.webhooks.filter((w) => w.payload.sid === sid);
  assert.equal(new Set(mine.map((w) => w.noticeId)).size, mine.length, 'no webhook delivered twice');
  const seq = mine.map((w) => w.payload.sequence);
  assert.deepEqual([...seq].sort((a, b) => a - b), seq, 'delivered in sequence order');
  for (const type of [43, 44]) assert.ok(mine.some((w) => w.eventType === type && w.payload.details.state === 1), `webhook ${type} state 1`);
}

test('recorder stopped (SIGTERM) during the outage: its journal keeps the events; a recorder started on its data dir writes them', async (t) => {
  const dataDir = join(cluster.root, 'recorder-journal');
  // A shorter lease for this session's recorders: the stopped one's session is taken over sooner.
  const env = { DATABASE_URL: pg.via(cluster.databaseUrl), REELTIME_RECORDING_DISPATCH_LEASE_SECOND: '20' };
  const recorder = await cluster.start(['recorder'], { dataDir, env });
  t.after(() => pg.restore());
  const cname = `${CNAME}-stop`;
  const pub = await cluster.publish(channel.url, cname, PUBLISHER + 1);
  const client = recordingClient(api.url);
  const { sid } = await client.startRecording(cname, REC_UID, {
    token: rtcToken(cname, Number(REC_UID), 2),
    storageConfig: storageConfig(),
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 2, maxIdleTime: 5 },
    recordingFileConfig: { avFileType: ['hls'] },
  });
  const history = async () => {
    const r = await client.api('GET', `/v1/apps/${APP}/cloud_recording/sessions/${sid}`);
    return r.status === 200 ? (r.body as unknown as Detail).events : [];
  };
  await waitUntil(() => bucketKeys(cluster.bucketDir).some((k) => k.includes(`/${sid}_`) && /\.ts$/.test(k)), { timeoutMs: 120_000, intervalMs: 200, what: 'a slice before the outage' });

  const cutAt = Date.now();
  pg.cut('reset');
  await pub.stop();
  // The streams' end is raised (events 43/44 state 1) while the database is away; then the process is stopped.
  await new Promise((r) => setTimeout(r, 3000));
  await recorder.close();
  t.diagnostic(`stopped recorder's output:\n${recorder.output().slice(-4000)}`);
  const journals = readdirSync(join(dataDir, 'outbox'));
  t.diagnostic(`journals left: ${journals.join(' ')}`);
  const kept = journals.filter((f) => f.startsWith('recording-events.')).map((f) => readFileSync(join(dataDir, 'outbox', f), 'utf8')).join('');
  assert.match(kept, /"eventType":43/, 'event 43 in the journal');
  assert.deepEqual((await history()).filter((e) => e.eventType === 43 && e.details.state === 1 && e.createdAt >= cutAt), [], 'not stored yet');

  const restoredAt = Date.now();
  pg.restore();
  await cluster.start(['recorder'], { dataDir, env });
  await waitUntil(async () => (await history()).filter((e) => e.details.state === 1 && e.createdAt >= cutAt).length >= 2, { timeoutMs: 60_000, intervalMs: 200, what: 'the journal written by the next start' });
  const events = await history();
  t.diagnostic(`history: ${events.map((e) => `${e.eventType}${e.details.state !== undefined ? `/${String(e.details.state)}` : ''}`).join(' ')}`);
  for (const type of [43, 44]) {
    const gone = events.filter((e) => e.eventType === type && e.details.state === 1 && e.createdAt >= cutAt);
    assert.equal(gone.length, 1, `event ${type} state 1 of the outage listed once`);
    assert.ok(gone[0]!.createdAt >= cutAt && gone[0]!.createdAt < restoredAt, `event ${type} raised during the outage`);
  }
  await waitUntil(() => cluster.webhooks.filter((w) => w.payload.sid === sid && w.payload.details.state === 1).length >= 2, { timeoutMs: 60_000, intervalMs: 200, what: 'the kept events delivered' });
  await new Promise((r) => setTimeout(r, 1000));
  const mine = cluster.webhooks.filter((w) => w.payload.sid === sid);
  assert.equal(new Set(mine.map((w) => w.noticeId)).size, mine.length, 'no webhook delivered twice');
  const seq = mine.map((w) => w.payload.sequence);
  assert.deepEqual([...seq].sort((a, b) => a - b), seq, 'delivered in sequence order');
});
