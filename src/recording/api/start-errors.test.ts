import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer, TEST_DIALECTS } from '../../testing/index.ts';
import { recordingClient, startRequest } from '../testing/client.ts';
import { allDoubles, RecorderDouble } from '../testing/recorder-double.ts';

const T0 = Date.UTC(2026, 0, 1, 12);

for (const dialect of TEST_DIALECTS) {
  test(`[${dialect}] start: unknown, foreign, reused, conflicting and expired resources`, async () => {
    const clock = new ManualClock(T0);
    const server = await startTestServer({ dialect, clock, recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
    try {
      const api = recordingClient(server.app);
      const body = { cname: 'room', uid: '100', clientRequest: startRequest('mix') };

      let r = await api.start('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'mix', body);
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 1001);
      r = await api.start('short!', 'mix', body);
      assert.equal(r.body.code, 1001);

      const a = (await api.acquire({ cname: 'room', uid: '100' })).body.resourceId as string;
      r = await api.start(a, 'mix', { ...body, uid: '101' });
      assert.deepEqual(r.body, { cname: 'room', uid: '101', resourceId: a, code: 432, reason: 'resource id does not match appid, cname or uid' });

      r = await api.start(a, 'mix', body);
      assert.equal(r.status, 200);
      const sid = r.body.sid as string;
      r = await api.start(a, 'mix', body);
      assert.equal(r.status, 201);
      assert.deepEqual(r.body, { cname: 'room', uid: '100', resourceId: a, sid, code: 7, reason: 'already started' });

      const b = (await api.acquire({ cname: 'room', uid: '100' })).body.resourceId as string;
      r = await api.start(b, 'mix', body);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { cname: 'room', uid: '100', resourceId: b, code: 53, reason: 'task conflict' });

      // A different uid in the same channel is a parallel task, not a conflict.
      const c = (await api.acquire({ cname: 'room', uid: '102' })).body.resourceId as string;
      assert.equal((await api.start(c, 'mix', { ...body, uid: '102' })).status, 200);

      const d = (await api.acquire({ cname: 'late', uid: '1' })).body.resourceId as string;
      clock.advance(5 * 60 * 1000);
      r = await api.start(d, 'mix', { ...body, cname: 'late', uid: '1' });
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 433);
      assert.equal(r.body.reason, 'resource expired');

      // Once stopped, the resource is used up; the conflict is gone for a new one.
      assert.equal((await api.stop(a, sid, 'mix', { cname: 'room', uid: '100', clientRequest: {} })).status, 200);
      r = await api.start(a, 'mix', body);
      assert.equal(r.body.code, 433);
      const e = (await api.acquire({ cname: 'room', uid: '100' })).body.resourceId as string;
      assert.equal((await api.start(e, 'mix', body)).status, 200);
    } finally {
      await server.close();
    }
  });
}

test('start: startParameter must equal the start clientRequest (key order aside); an invalid one does not fail acquire', async () => {
  const server = await startTestServer({ recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
  try {
    const api = recordingClient(server.app);
    const cr = startRequest('individual');
    const reordered = Object.fromEntries(Object.entries(cr).reverse());
    let a = await api.acquire({ cname: 'p', uid: '1', clientRequest: { startParameter: reordered } });
    assert.equal(a.status, 200);
    assert.equal((await api.start(a.body.resourceId as string, 'individual', { cname: 'p', uid: '1', clientRequest: cr })).status, 200);

    a = await api.acquire({ cname: 'p', uid: '2', clientRequest: { startParameter: { ...cr, recordingConfig: { channelType: 1, subscribeUidGroup: 0 } } } });
    const r = await api.start(a.body.resourceId as string, 'individual', { cname: 'p', uid: '2', clientRequest: cr });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { cname: 'p', uid: '2', resourceId: a.body.resourceId, code: 2, reason: 'request_hash mismatch!' });

    a = await api.acquire({ cname: 'p', uid: '3', clientRequest: { startParameter: { storageConfig: 'nope' } } });
    assert.equal(a.status, 200);
  } finally {
    await server.close();
  }
});

test('start: scene and mode must agree, the mode must exist, storage must be in the acquire region', async () => {
  const server = await startTestServer({
    recorders: [new RecorderDouble('individual')],
    values: { recording: { rateLimitPerSecond: 0 } },
  });
  try {
    const api = recordingClient(server.app);
    const acquire = async (uid: string, cr: Record<string, unknown> = {}) =>
      (await api.acquire({ cname: 'm', uid, clientRequest: cr })).body.resourceId as string;

    let r = await api.start(await acquire('1'), 'audio', { cname: 'm', uid: '1', clientRequest: startRequest('individual') });
    assert.equal(r.body.reason, 'mode: must be one of individual, mix, web');
    r = await api.start(await acquire('2', { scene: 1 }), 'individual', { cname: 'm', uid: '2', clientRequest: startRequest('individual') });
    assert.equal(r.body.reason, 'mode: must be web for a resource acquired with scene 1');
    r = await api.start(await acquire('3'), 'web', { cname: 'm', uid: '3', clientRequest: startRequest('web') });
    assert.equal(r.body.reason, 'mode: web requires a resource acquired with clientRequest.scene 1');
    r = await api.start(await acquire('4'), 'mix', { cname: 'm', uid: '4', clientRequest: startRequest('mix') });
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'mode: no mix recorder is available on this server');

    r = await api.start(await acquire('5', { region: 'EU' }), 'individual', { cname: 'm', uid: '5', clientRequest: startRequest('individual') });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 2);
    assert.match(r.body.reason as string, /^clientRequest\.storageConfig\.region: .*US_EAST_1.*NA.*EU/);
    const eu = { ...startRequest('individual'), storageConfig: { ...(startRequest('individual').storageConfig as object), region: 7 } };
    r = await api.start(await acquire('6', { region: 'EU' }), 'individual', { cname: 'm', uid: '6', clientRequest: eu });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  } finally {
    await server.close();
  }
});

test('start: appsCollection with combinationPolicy "default" is accepted outside scene 2 in individual mode; postpone_transcoding there is refused naming it', async () => {
  const server = await startTestServer({
    recorders: [new RecorderDouble('individual'), new RecorderDouble('mix')],
    values: { recording: { rateLimitPerSecond: 0 } },
  });
  try {
    const api = recordingClient(server.app);
    const acquire = async (uid: string, cr: Record<string, unknown> = {}) =>
      (await api.acquire({ cname: 'p', uid, clientRequest: cr })).body.resourceId as string;
    const withPolicy = (mode: 'individual' | 'mix', policy: string | undefined) => ({
      ...startRequest(mode),
      appsCollection: policy === undefined ? {} : { combinationPolicy: policy },
    });
    let r = await api.start(await acquire('1'), 'individual', { cname: 'p', uid: '1', clientRequest: withPolicy('individual', 'default') });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    r = await api.start(await acquire('2'), 'individual', { cname: 'p', uid: '2', clientRequest: withPolicy('individual', undefined) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    r = await api.start(await acquire('3'), 'individual', { cname: 'p', uid: '3', clientRequest: withPolicy('individual', 'postpone_transcoding') });
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'clientRequest.appsCollection.combinationPolicy: must be "default" (or absent) unless the resource was acquired with scene 2');
    r = await api.start(await acquire('4'), 'mix', { cname: 'p', uid: '4', clientRequest: withPolicy('mix', 'default') });
    assert.equal(r.status, 400);
    assert.match(r.body.reason as string, /^clientRequest\.appsCollection: /);
    r = await api.start(await acquire('5', { scene: 2 }), 'individual', { cname: 'p', uid: '5', clientRequest: withPolicy('individual', 'default') });
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'clientRequest.appsCollection.combinationPolicy: must be "postpone_transcoding" with scene 2');
  } finally {
    await server.close();
  }
});

test('start: a recorder that cannot launch answers 500 code 502, leaves no live session and keeps the resource for a retry', async () => {
  const server = await startTestServer({
    recorders: [new RecorderDouble('mix', { failStart: true }), new RecorderDouble('individual', { failStart: 1 })],
    values: { recording: { rateLimitPerSecond: 0 } },
  });
  try {
    const api = recordingClient(server.app);
    const rid = (await api.acquire({ cname: 'f', uid: '1' })).body.resourceId as string;
    const r = await api.start(rid, 'mix', { cname: 'f', uid: '1', clientRequest: startRequest('mix') });
    assert.equal(r.status, 500);
    assert.equal(r.body.code, 502);
    assert.equal(r.body.reason, 'Failed to allocate worker');
    const q = await api.query(rid, r.body.sid as string, 'mix');
    assert.equal(q.status, 404);
    // The hosted service's advice: retry the same start after 3/6/9 s. The resource is still startable (not 433).
    const again = await api.start(rid, 'mix', { cname: 'f', uid: '1', clientRequest: startRequest('mix') });
    assert.equal(again.status, 500);
    assert.equal(again.body.code, 502);
    // The cname+uid is free again for a new resource too.
    const rid2 = (await api.acquire({ cname: 'f', uid: '1' })).body.resourceId as string;
    const r2 = await api.start(rid2, 'mix', { cname: 'f', uid: '1', clientRequest: startRequest('mix') });
    assert.equal(r2.body.code, 502);

    // A recorder that fails once: the retry with the same resource and body starts, under a new sid.
    const rid3 = (await api.acquire({ cname: 'f', uid: '2' })).body.resourceId as string;
    const body = { cname: 'f', uid: '2', clientRequest: startRequest('individual') };
    const failed = await api.start(rid3, 'individual', body);
    assert.equal(failed.status, 500);
    const retried = await api.start(rid3, 'individual', body);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.notEqual(retried.body.sid, failed.body.sid);
    assert.equal((await api.query(rid3, retried.body.sid as string, 'individual')).status, 200);
    // Once started, the resource is spent as before.
    assert.equal((await api.start(rid3, 'individual', body)).body.code, 7);
  } finally {
    await server.close();
  }
});

test('acquire: the per-app concurrency limit answers 406 vendor_over_load until resources expire', async () => {
  const clock = new ManualClock(T0);
  const server = await startTestServer({ clock, recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0, maxConcurrentTasks: 2 } } });
  try {
    const api = recordingClient(server.app);
    assert.equal((await api.acquire({ cname: 'a', uid: '1' })).status, 200);
    assert.equal((await api.acquire({ cname: 'a', uid: '2' })).status, 200);
    const r = await api.acquire({ cname: 'a', uid: '3' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { cname: 'a', uid: '3', code: 406, reason: 'vendor_over_load' });
    clock.advance(5 * 60 * 1000);
    assert.equal((await api.acquire({ cname: 'a', uid: '3' })).status, 200);
  } finally {
    await server.close();
  }
});
