/**
 * @reeltime/client against a real reeltime on loopback (HTTP through fetch; recorder doubles stand in for the
 * media side): typed answers per mode, typed errors, and the retry delays it waits through on an injected sleep.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GatewayError, hostedBaseUrl, RecordingClient, ServiceError, buildRtcTokenWithUid, type RecordingClientOptions } from '@reeltime/client';
import { startTestServer, TEST_CUSTOMER_SECRET, type TestServer } from '../src/testing/index.ts';
import { startRequest, TEST_APP_ID } from '../src/recording/testing/client.ts';
import { allDoubles, RecorderDouble } from '../src/recording/testing/recorder-double.ts';

let server: TestServer;
let failing: TestServer;
before(async () => {
  server = await startTestServer({ recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
  // A mix recorder that cannot launch (start answers 500 code 502) and an individual one that records nothing.
  failing = await startTestServer({
    recorders: [new RecorderDouble('mix', { failStart: true }), new RecorderDouble('individual', { recordNothing: true })],
    values: { recording: { rateLimitPerSecond: 0 } },
  });
});
after(async () => {
  await server?.close();
  await failing?.close();
});

function client(baseUrl: string, extra: Partial<RecordingClientOptions> = {}) {
  const slept: number[] = [];
  const c = new RecordingClient({
    baseUrl,
    appId: TEST_APP_ID,
    customerId: 'test-customer',
    customerSecret: TEST_CUSTOMER_SECRET,
    sleep: async (ms) => void slept.push(ms),
    ...extra,
  });
  return { c, slept };
}

test('acquire, start, query (typed per mode), update, updateLayout and stop through the client', async () => {
  const { c, slept } = client(server.url);
  const cname = 'client-mix';
  const acquired = await c.acquire({ cname, uid: '7', clientRequest: {} });
  assert.deepEqual(Object.keys(acquired), ['cname', 'uid', 'resourceId']);
  const started = await c.start(acquired.resourceId, 'mix', { cname, uid: '7', clientRequest: startRequest('mix') as never });
  const session = { resourceId: started.resourceId, sid: started.sid, mode: 'mix' } as const;
  const q = await c.query(session);
  // The mix answer with HLS alone names the playlist as a string.
  assert.equal(q.serverResponse.fileListMode, 'string');
  if (q.serverResponse.fileListMode === 'string') assert.equal(q.serverResponse.fileList, `${started.sid}_${cname}.m3u8`);
  assert.equal((await c.update(session, { cname, uid: '7', clientRequest: { streamSubscribe: { audioUidList: { subscribeAudioUids: ['#allstream#'] } } } })).sid, started.sid);
  assert.equal((await c.updateLayout(session, { cname, uid: '7', clientRequest: { mixedVideoLayout: 0 } })).sid, started.sid);
  const stopped = await c.stop(session, { cname, uid: '7', clientRequest: {} });
  assert.ok('uploadingStatus' in stopped.serverResponse);
  assert.deepEqual((await c.getNcsIp()).data.service.hosts.length > 0, true);
  assert.deepEqual(slept, []);

  const ind = await c.acquire({ cname: 'client-ind', uid: '8' });
  const s2 = await c.start(ind.resourceId, 'individual', { cname: 'client-ind', uid: '8', clientRequest: startRequest('individual') as never });
  const qi = await c.query({ resourceId: s2.resourceId, sid: s2.sid, mode: 'individual' });
  assert.ok('fileList' in qi.serverResponse && Array.isArray(qi.serverResponse.fileList));
});

test("reeltime's sessions API: every session, filtered and paged, and one session without its secrets", async () => {
  const { c } = client(server.url);
  const started: string[] = [];
  for (const mode of ['individual', 'mix', 'individual'] as const) {
    const cname = 'client-sessions';
    const uid = String(100 + started.length);
    const a = await c.acquire({ cname, uid });
    const s = await c.start(a.resourceId, mode, { cname, uid, clientRequest: { ...startRequest(mode), token: 'rtc-token-secret' } as never });
    started.push(s.sid);
    if (started.length === 1) await c.stop({ resourceId: s.resourceId, sid: s.sid, mode }, { cname, uid, clientRequest: {} });
  }
  const all = await c.listSessions({ cname: 'client-sessions' });
  assert.deepEqual(new Set(all.sessions.map((x) => x.sid)), new Set(started));
  assert.equal(all.nextCursor, undefined);
  assert.deepEqual((await c.listSessions({ cname: 'client-sessions', mode: 'mix' })).sessions.map((x) => x.sid), [started[1]]);
  assert.deepEqual((await c.listSessions({ cname: 'client-sessions', status: 'ended' })).sessions.map((x) => [x.sid, x.state]), [[started[0], 'ended']]);

  // One per page, following nextCursor: every session once, newest first.
  const paged: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await c.listSessions({ cname: 'client-sessions', limit: 1, ...(cursor ? { cursor } : {}) });
    paged.push(...page.sessions.map((x) => x.sid));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(paged, all.sessions.map((x) => x.sid));

  const detail = await c.getSession(started[0]!);
  assert.equal(detail.state, 'ended');
  assert.equal(detail.fileCount, detail.files.length);
  assert.ok(detail.files.every((f) => f.url?.startsWith(`${server.url}/bucket/test-bucket/`)), JSON.stringify(detail.files));
  const text = JSON.stringify(detail);
  for (const secret of ['super-secret-key-value', 'AKIATESTKEY', 'rtc-token-secret']) assert.ok(!text.includes(secret), secret);
  assert.equal((detail.clientRequest as { storageConfig: { bucket: string } }).storageConfig.bucket, 'test-bucket');
  // No webhook is configured for the test app: every notification is recorded as skipped, in sequence.
  assert.ok(detail.webhooks.some((w) => w.msgName === 'session_exit'), JSON.stringify(detail.webhooks));
  assert.deepEqual(detail.webhooks.map((w) => w.sequence), detail.webhooks.map((_, i) => i));
  assert.ok(detail.webhooks.every((w) => w.delivery === 'skipped'), JSON.stringify(detail.webhooks));

  const bad = await c.listSessions({ status: 'paused' as never }).catch((e: unknown) => e);
  assert.ok(bad instanceof ServiceError && bad.code === 2 && bad.reason.startsWith('status: '), String(bad));
  const missing = await c.getSession('f'.repeat(32)).catch((e: unknown) => e);
  assert.ok(missing instanceof ServiceError && missing.status === 404, String(missing));
});

test('gateway and service refusals are typed errors with the body the server sent', async () => {
  const { c: wrong } = client(server.url, { customerSecret: 'nope' });
  const e1 = await wrong.acquire({ cname: 'x', uid: '1' }).catch((e: unknown) => e);
  assert.ok(e1 instanceof GatewayError);
  assert.deepEqual([e1.status, e1.body], [401, { message: 'Invalid authentication credentials' }]);

  const { c } = client(server.url);
  const e2 = await c.acquire({ cname: 'x', uid: '0' }).catch((e: unknown) => e);
  assert.ok(e2 instanceof ServiceError);
  assert.equal(e2.status, 400);
  assert.equal(e2.code, 2);
  assert.match(e2.reason, /^uid: /);
});

test('a 404 on query is retried after 5, 10 and 15 s, then rejected with code 404', async () => {
  const { c, slept } = client(server.url);
  const e = await c.query({ resourceId: 'A'.repeat(64), sid: 'b'.repeat(32), mode: 'individual' }).catch((x: unknown) => x);
  assert.ok(e instanceof ServiceError, String(e));
  assert.deepEqual([e.status, e.code], [404, 404]);
  assert.deepEqual(slept, [5000, 10000, 15000]);
});

test('a 5xx on start is retried with the same body after 3, 6 and 9 s; a 4xx answer is not retried; nothing recorded on stop is code 435', async () => {
  const retried: { attempt: number; status: number; delayMs: number }[] = [];
  const { c, slept } = client(failing.url, { onRetry: (r) => retried.push({ attempt: r.attempt, status: r.error.status, delayMs: r.delayMs }) });
  const a = await c.acquire({ cname: 'client-fail', uid: '9' });
  const e = await c.start(a.resourceId, 'mix', { cname: 'client-fail', uid: '9', clientRequest: startRequest('mix') as never }).catch((x: unknown) => x);
  // A failed launch leaves the resource startable (docs/client.md, "Retries"): every retry reaches a recorder again.
  assert.ok(e instanceof ServiceError, String(e));
  assert.deepEqual([e.status, e.code], [500, 502]);
  assert.deepEqual(retried, [
    { attempt: 1, status: 500, delayMs: 3000 },
    { attempt: 2, status: 500, delayMs: 6000 },
    { attempt: 3, status: 500, delayMs: 9000 },
  ]);
  assert.deepEqual(slept, [3000, 6000, 9000]);
  // A refusal (here another uid than the resource's) is final.
  const refused = await c.start(a.resourceId, 'mix', { cname: 'client-fail', uid: '10', clientRequest: startRequest('mix') as never }).catch((x: unknown) => x);
  assert.ok(refused instanceof ServiceError && refused.status === 400, String(refused));
  assert.equal(retried.length, 3);

  const b = await c.acquire({ cname: 'client-empty', uid: '9' });
  const s = await c.start(b.resourceId, 'individual', { cname: 'client-empty', uid: '9', clientRequest: startRequest('individual') as never });
  const stop = await c.stop({ resourceId: s.resourceId, sid: s.sid, mode: 'individual' }, { cname: 'client-empty', uid: '9', clientRequest: {} }).catch((x: unknown) => x);
  assert.ok(stop instanceof ServiceError);
  assert.deepEqual([stop.status, stop.code, stop.reason], [206, 435, 'no recorded data']);
});

test('the hosted base URLs and the token builders re-exported from @reeltime/token', () => {
  assert.equal(hostedBaseUrl(), 'https://api.sd-rtn.com');
  assert.equal(hostedBaseUrl('eu-west-1', 'agora.io'), 'https://api-eu-west-1.agora.io');
  assert.match(buildRtcTokenWithUid(TEST_APP_ID, '5CFd2fd1755d40ecb72977518be15d3b', 'c', 1, 1, 60, 60), /^007/);
});
