// A recorder's reports (status, file list, its end) and the session history's events raised while PostgreSQL does
// not answer (a TCP proxy in front of the shared server refuses connections): kept in the process, in order, and
// written once it answers (item 1); left in the journal by a graceful stop during the outage and written by the next
// start on the same data dir (item 2). docs/deployment.md, "What an outage of Redis or PostgreSQL does".
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../clock/index.ts';
import { openDatabase } from '../db/index.ts';
import { startReceiver } from '../notify/test-helpers.ts';
import { openTestDatabase, startTcpProxy, startTestServer, TEST_PG_URL, type TestDatabase, type TestServer, waitUntil } from '../testing/index.ts';
import type { RecordedFile } from './dispatch/types.ts';
import { recordingClient, RecorderDouble, sampleFiles, startRequest, TEST_APP_ID } from './testing/index.ts';

const SECRET = 'whsec-0f1e2d3c4b5a69788796a5b4c3d2e1f0';


async function setUp() {
  const db = await openTestDatabase('postgres');
  const proxy = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
  const hook = await startReceiver(() => 200);
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-reports-outage-'));
  const clock = new ManualClock(Date.UTC(2026, 10, 27));
  const servers: { server: TestServer; via: Awaited<ReturnType<typeof openDatabase>> }[] = [];
  const start = async (recorder: RecorderDouble): Promise<TestServer> => {
    const via = await openDatabase({ url: proxy.via(`${TEST_PG_URL}?schema=${db.location.pgSchema}`) });
    const database: TestDatabase = { ...via, location: db.location };
    const server = await startTestServer({
      clock,
      dataDir,
      database,
      recorders: [recorder],
      values: { recording: { rateLimitPerSecond: 0 }, notify: { webhooks: { [TEST_APP_ID]: { url: hook.url, secret: SECRET } } } },
    });
    servers.push({ server, via });
    return server;
  };
  const history = async (sid: string) =>
    (await db.db.selectFrom('recording_events').select(['event_type', 'details', 'created_at']).where('sid', '=', sid).orderBy('created_at').execute()).map(
      (r) => ({ eventType: r.event_type, details: JSON.parse(r.details) as Record<string, unknown>, at: Number(r.created_at) }),
    );
  const task = async (rid: string) => {
    const row = await db.db.selectFrom('recording_tasks').select('data').where('resource_id', '=', rid).executeTakeFirst();
    return row ? (JSON.parse(row.data) as { kind: string; session: { status: number; files: RecordedFile[] } }) : undefined;
  };
  return {
    db,
    proxy,
    hook,
    dataDir,
    clock,
    start,
    history,
    task,
    async close(server: TestServer) {
      const entry = servers.find((s) => s.server === server)!;
      // A graceful stop flushes on the clock (bounded): let it run.
      let done = false;
      const closing = server.close().finally(() => (done = true));
      while (!done) {
        await new Promise((r) => setTimeout(r, 20));
        clock.advance(500);
      }
      await closing;
      await entry.via.close();
      servers.splice(servers.indexOf(entry), 1);
    },
    async tearDown() {
      for (const s of [...servers]) await this.close(s.server);
      await hook.close();
      await proxy.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function begin(server: TestServer, cname: string) {
  const client = recordingClient(server.app);
  const acq = await client.acquire({ cname, uid: '4242', clientRequest: {} });
  const rid = acq.body.resourceId as string;
  const r = await client.start(rid, 'individual', { cname, uid: '4242', clientRequest: { ...startRequest('individual'), token: 'rtc-token' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { rid, sid: r.body.sid as string, client };
}

/** What the recorder says while the database is away: a new playlist (a slice closed), its events, its end. */
function duringOutage(recorder: RecorderDouble, sid: string): RecordedFile[] {
  const s = recorder.session(sid);
  const files = [
    ...sampleFiles(s.task),
    { fileName: `${sid}_outage__uid_s_999__uid_e_audio.m3u8`, trackType: 'audio', uid: '999', mixedAllUser: false, isPlayable: true, sliceStartTime: s.task.startedAt + 20_000 } as const,
  ];
  s.report.event(43, 1, { msgName: 'recorder_audio_stream_state_changed', streamUid: '999', state: 0, UtcMs: 1 });
  s.report.files(files);
  s.report.status(6);
  s.report.event(41, 1, { msgName: 'recorder_leave', leaveCode: 4 });
  s.report.event(31, 2, { msgName: 'uploaded', status: 0, fileList: files.map((f) => f.fileName) });
  s.report.ended({ reason: 'idle', uploadingStatus: 'uploaded', recordedAnything: true });
  return files;
}

test('[postgres] reports and history events raised during an outage are written once the database answers, in order', async () => {
  const t = await setUp();
  try {
    const recorder = new RecorderDouble('individual');
    const server = await t.start(recorder);
    const { rid, sid, client } = await begin(server, 'outage-a');
    await waitUntil(async () => ((await t.task(rid))?.session.files.length ?? 0) === 2, { what: 'the first files reported' });

    t.proxy.cut('reset');
    const files = duringOutage(recorder, sid);
    // A few retries while away: nothing reaches the store, nothing is lost.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 50));
      t.clock.advance(1000);
    }
    assert.equal((await t.task(rid))?.kind, 'live');
    assert.deepEqual((await t.history(sid)).map((e) => e.eventType).filter((e) => e === 43 || e === 41), []);

    t.proxy.restore();
    await waitUntil(async () => (await t.task(rid))?.kind === 'ended', { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'the session ended by its kept report' });
    const ended = (await t.task(rid))!;
    assert.deepEqual(ended.session.files.map((f) => f.fileName), files.map((f) => f.fileName), 'the file list reported during the outage');
    await waitUntil(async () => (await t.history(sid)).some((e) => e.eventType === 11), { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'event 11 in the history' });
    const events = await t.history(sid);
    // The recorder's events in the order raised, then the session's end (11) once the kept end was applied.
    const mine = events.map((e) => e.eventType).filter((e) => [43, 41, 31, 11].includes(e));
    assert.deepEqual(mine, [43, 41, 31, 11]);
    assert.ok(events.filter((e) => e.eventType === 43).length === 1, 'each listed once');

    // The sessions API (any process reading the store) shows it all.
    const detail = await client.call('GET', `/v1/apps/${TEST_APP_ID}/cloud_recording/sessions/${sid}`);
    assert.equal(detail.status, 200, JSON.stringify(detail.body));
    const listed = (detail.body.events as { eventType: number }[]).map((e) => e.eventType);
    for (const e of [43, 41, 31, 11]) assert.ok(listed.includes(e), `event ${e} in ${listed.join(',')}`);
    assert.deepEqual((detail.body.files as { fileName: string }[]).map((f) => f.fileName), files.map((f) => f.fileName));
    const states = (detail.body.statusHistory as { state: string }[]).map((h) => h.state);
    assert.equal(states[states.length - 1], 'ended', states.join(','));
  } finally {
    await t.tearDown();
  }
});

test('[postgres] a graceful stop during an outage leaves reports and events on disk; the next start writes them', async () => {
  const t = await setUp();
  try {
    const recorder = new RecorderDouble('individual');
    const server = await t.start(recorder);
    const { rid, sid } = await begin(server, 'outage-b');
    await waitUntil(async () => ((await t.task(rid))?.session.files.length ?? 0) === 2, { what: 'the first files reported' });

    t.proxy.cut('reset');
    const files = duringOutage(recorder, sid);
    await new Promise((r) => setTimeout(r, 100));
    await t.close(server);
    const journals = readdirSync(join(t.dataDir, 'outbox'));
    assert.ok(journals.some((f) => f.startsWith('recording-reports.')), journals.join(' '));
    assert.ok(journals.some((f) => f.startsWith('recording-events.')), journals.join(' '));
    assert.ok(journals.some((f) => f.startsWith('notify.')), journals.join(' '));
    assert.equal((await t.task(rid))?.kind, 'live', 'nothing written during the outage');

    // The database is back; the process starts again on the same data dir.
    t.proxy.restore();
    const again = new RecorderDouble('individual');
    await t.start(again);
    await waitUntil(async () => (await t.task(rid))?.kind === 'ended', { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'the kept end applied by the next start' });
    assert.equal(again.sessions.size, 0, 'applied before recovery: the ended session was not resumed');
    assert.deepEqual((await t.task(rid))!.session.files.map((f) => f.fileName), files.map((f) => f.fileName));
    await waitUntil(async () => (await t.history(sid)).some((e) => e.eventType === 11), { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'event 11 in the history' });
    const mine = (await t.history(sid)).map((e) => e.eventType).filter((e) => [43, 41, 31, 11].includes(e));
    assert.deepEqual(mine, [43, 41, 31, 11]);

    // The recorder's events reach the webhook too, once each, in order, after the ones sent before the outage.
    await waitUntil(async () => t.hook.bodies().some((b) => b.eventType === 11 && b.payload.sid === sid), { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'event 11 delivered' });
    const sent = t.hook.bodies().filter((b) => b.payload.sid === sid);
    assert.equal(new Set(sent.map((b) => b.noticeId)).size, sent.length, 'no event delivered twice');
    const seq = sent.map((b) => b.payload.sequence);
    assert.deepEqual([...seq].sort((a, b) => a - b), seq, 'in sequence order');
    const types = sent.map((b) => b.eventType);
    assert.ok(types.indexOf(43) < types.indexOf(41) && types.indexOf(41) < types.indexOf(31), types.join(','));
  } finally {
    await t.tearDown();
  }
});

test('[postgres] a stop whose end the database does not take answers the recorder\'s result, and the end is written once it answers', async () => {
  const t = await setUp();
  try {
    const recorder = new RecorderDouble('individual');
    const server = await t.start(recorder);
    const { rid, sid, client } = await begin(server, 'outage-stop');
    await waitUntil(async () => ((await t.task(rid))?.session.files.length ?? 0) === 2, { what: 'the first files reported' });

    // The stop reaches the recorder while the database answers; the database goes away before the end is written.
    recorder.holdStops();
    const stopping = client.stop(rid, sid, 'individual', { cname: 'outage-stop', uid: '4242', clientRequest: {} });
    await waitUntil(() => recorder.session(sid).stopCalls === 1, { what: 'the recorder asked to stop' });
    t.proxy.cut('reset');
    recorder.releaseStops();
    const stopped = await stopping;
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    const answer = stopped.body.serverResponse as { uploadingStatus: string; fileList: unknown };
    assert.equal(answer.uploadingStatus, 'uploaded', JSON.stringify(stopped.body));
    assert.equal((await t.task(rid))?.kind, 'stopping', 'not written while the database is away');

    t.proxy.restore();
    await waitUntil(async () => (await t.task(rid))?.kind === 'ended', { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'the kept end written' });
    assert.deepEqual((await t.task(rid))!.session.files.map((f) => f.fileName), sampleFiles(recorder.session(sid).task).map((f) => f.fileName));
    await waitUntil(async () => (await t.history(sid)).some((e) => e.eventType === 11), { beforeCheck: () => t.clock.advance(1000), intervalMs: 5, timeoutMs: 60_000, what: 'event 11 in the history' });
  } finally {
    await t.tearDown();
  }
});
