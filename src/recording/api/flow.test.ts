import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { openTestDatabase, startTestServer, TEST_DIALECTS, waitUntil } from '../../testing/index.ts';
import { TaskStore } from '../store/index.ts';
import { recordingClient, startRequest } from '../testing/client.ts';
import { allDoubles, RecorderDouble } from '../testing/recorder-double.ts';

async function setup(dialect: (typeof TEST_DIALECTS)[number], values = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const doubles = allDoubles();
  const server = await startTestServer({ dialect, clock, recorders: doubles, values: { recording: { rateLimitPerSecond: 0, ...values } } });
  return { server, clock, doubles, api: recordingClient(server.app), double: (m: string) => doubles.find((d) => d.mode === m)! };
}

async function started(api: ReturnType<typeof recordingClient>, mode: 'individual' | 'mix' | 'web', cname = 'room1', uid = '527841') {
  const acq = await api.acquire({ cname, uid, clientRequest: mode === 'web' ? { scene: 1 } : {} });
  assert.equal(acq.status, 200, JSON.stringify(acq.body));
  const rid = acq.body.resourceId as string;
  const st = await api.start(rid, mode, { cname, uid, clientRequest: startRequest(mode) });
  assert.equal(st.status, 200, JSON.stringify(st.body));
  return { rid, sid: st.body.sid as string };
}

for (const dialect of TEST_DIALECTS) {
  test(`[${dialect}] acquire, start, query, stop: individual files as json, secrets never echoed`, async () => {
    const { server, api, double } = await setup(dialect);
    try {
      const acq = await api.acquire({ cname: 'room1', uid: '527841', clientRequest: {} });
      assert.equal(acq.status, 200);
      assert.deepEqual(Object.keys(acq.body).sort(), ['cname', 'resourceId', 'uid']);
      const rid = acq.body.resourceId as string;
      const st = await api.start(rid, 'individual', { cname: 'room1', uid: '527841', clientRequest: startRequest('individual') });
      assert.equal(st.status, 200, JSON.stringify(st.body));
      assert.equal(st.body.resourceId, rid);
      assert.match(st.body.sid as string, /^[0-9a-f]{32}$/);
      const sid = st.body.sid as string;
      const s = double('individual').session(sid);
      assert.equal(s.task.cname, 'room1');
      assert.equal(s.task.storage.bucket, 'test-bucket');
      assert.equal(s.task.settings.mode, 'individual');

      await waitUntil(async () => ((await api.query(rid, sid, 'individual')).body.serverResponse as { fileList: unknown[] }).fileList.length === 2, { what: 'files reported' });
      const q = await api.query(rid, sid, 'individual');
      assert.equal(q.status, 200);
      const sr = q.body.serverResponse as Record<string, unknown>;
      assert.equal(sr.fileListMode, 'json');
      assert.equal((sr.fileList as unknown[]).length, 2);
      assert.equal(sr.sliceStartTime, Date.UTC(2026, 0, 1, 12));
      const entry = (sr.fileList as Record<string, unknown>[])[0]!;
      assert.deepEqual(Object.keys(entry).sort(), ['fileName', 'isPlayable', 'mixedAllUser', 'sliceStartTime', 'trackType', 'uid']);
      assert.equal(entry.sliceStartTime, Date.UTC(2026, 0, 1, 12) / 1000);
      assert.doesNotMatch(JSON.stringify(q.body), /super-secret|AKIATESTKEY/);

      const stop = await api.stop(rid, sid, 'individual', { cname: 'room1', uid: '527841', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      assert.deepEqual(stop.body.serverResponse, {
        fileListMode: 'json',
        fileList: sr.fileList,
        uploadingStatus: 'uploaded',
      });
      assert.doesNotMatch(JSON.stringify(stop.body), /super-secret|AKIATESTKEY/);
      const after = await api.query(rid, sid, 'individual');
      assert.equal(after.status, 404);
      assert.deepEqual(after.body, { resourceId: rid, sid, code: 404, reason: 'failed to find worker' });
    } finally {
      await server.close();
    }
  });

  test(`[${dialect}] a restart resumes live sessions on their recorder and ends stopping ones as unknown`, async () => {
    const database = await openTestDatabase(dialect);
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const values = { recording: { rateLimitPerSecond: 0 } };
    try {
      const before = allDoubles();
      const first = await startTestServer({ dialect, clock, database, recorders: before, values });
      const api1 = recordingClient(first.app);
      const live = await started(api1, 'mix', 'keep', '11');
      const half = await started(api1, 'individual', 'half', '12');
      await waitUntil(async () => ((await api1.query(live.rid, live.sid, 'mix')).body.serverResponse as { fileList: string }).fileList !== '', { what: 'mix file' });
      // An asynchronous stop whose uploads never finish before the process goes away.
      before.find((x) => x.mode === 'individual')!.holdStops();
      assert.equal((await api1.stop(half.rid, half.sid, 'individual', { cname: 'half', uid: '12', clientRequest: { async_stop: true } })).status, 200);
      await first.close();

      const after = allDoubles();
      const second = await startTestServer({ dialect, clock, database, recorders: after, values });
      try {
        const api2 = recordingClient(second.app);
        const resumed = after.find((x) => x.mode === 'mix')!.session(live.sid);
        assert.equal(resumed.task.resumed, true);
        assert.deepEqual(resumed.task.previousFiles.map((f) => f.fileName), [`${live.sid}_keep.m3u8`]);
        assert.equal((await api2.query(live.rid, live.sid, 'mix')).status, 200);
        assert.equal(after.find((x) => x.mode === 'individual')!.sessions.size, 0);
        assert.equal((await api2.query(half.rid, half.sid, 'individual')).status, 404);
        const ended = await new TaskStore(second.context.database.db).get(half.rid);
        assert.equal(ended?.kind, 'ended');
        assert.equal(ended?.kind === 'ended' && ended.uploadingStatus, 'unknown');
        // The resumed session still conflicts with a new one on the same cname+uid, and stops normally.
        const again = (await api2.acquire({ cname: 'keep', uid: '11' })).body.resourceId as string;
        assert.equal((await api2.start(again, 'mix', { cname: 'keep', uid: '11', clientRequest: startRequest('mix') })).body.code, 53);
        const stop = await api2.stop(live.rid, live.sid, 'mix', { cname: 'keep', uid: '11', clientRequest: {} });
        assert.equal(stop.status, 200);
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
    }
  });
}

test('a double recorder can be asked for its sessions', () => {
  const d = new RecorderDouble('mix');
  assert.throws(() => d.session('nope'));
});
