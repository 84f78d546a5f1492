import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer, TEST_DIALECTS } from '../../testing/index.ts';
import { recordingClient, startRequest, waitFor } from '../testing/client.ts';
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
      assert.equal(s.task.clientRequest.storageConfig.bucket, 'test-bucket');

      await waitFor(
        async () => ((await api.query(rid, sid, 'individual')).body.serverResponse as { fileList: unknown[] }).fileList.length === 2,
        'files reported',
      );
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

  test(`[${dialect}] a server restart resumes live sessions on their recorder`, async () => {
    const { openTestDatabase } = await import('../../testing/index.ts');
    const database = await openTestDatabase(dialect);
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    try {
      const first = await startTestServer({ dialect, clock, database, recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
      const api1 = recordingClient(first.app);
      const live = await started(api1, 'mix', 'keep', '11');
      const stopping = await started(api1, 'individual', 'half', '12');
      await waitFor(async () => ((await api1.query(live.rid, live.sid, 'mix')).body.serverResponse as { status: number }).status === 5, 'mix running');
      const ind = first.modules.length; void ind;
      // A stop that never finishes before the "crash".
      const d = (first as unknown as { modules: unknown[] }).modules; void d;
      await first.close();

      const doubles = allDoubles();
      const second = await startTestServer({ dialect, clock, database, recorders: doubles, values: { recording: { rateLimitPerSecond: 0 } } });
      try {
        const api2 = recordingClient(second.app);
        const mix = doubles.find((x) => x.mode === 'mix')!;
        const resumed = mix.session(live.sid);
        assert.equal(resumed.task.resumed, true);
        assert.equal(resumed.task.previousFiles.length, 1);
        const q = await api2.query(live.rid, live.sid, 'mix');
        assert.equal(q.status, 200);
        const stop = await api2.stop(live.rid, live.sid, 'mix', { cname: 'keep', uid: '11', clientRequest: {} });
        assert.equal(stop.status, 200);
        void stopping;
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
