import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer } from '../../testing/index.ts';
import { recordingClient, TEST_APP_ID, TEST_AUTH } from '../testing/client.ts';
import { allDoubles } from '../testing/recorder-double.ts';

const OTHER_APP = 'aaaabbbbccccddddeeeeffff00001111';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

test('gateway: Basic auth, unknown apps, unknown routes and wrong methods answer like the hosted gateway', async () => {
  const server = await startTestServer({
    recorders: allDoubles(),
    values: { recording: { rateLimitPerSecond: 0, customers: [{ id: 'other', secret: 'other-secret', appIds: [OTHER_APP] }] } },
  });
  try {
    const app = server.app;
    const url = `/v1/apps/${TEST_APP_ID}/cloud_recording/acquire`;
    const body = JSON.stringify({ cname: 'c', uid: '1' });
    const post = (headers: Record<string, string>, u = url) =>
      app.inject({ method: 'POST', url: u, headers: { 'content-type': 'application/json', ...headers }, payload: body });

    let r = await post({});
    assert.equal(r.statusCode, 401);
    assert.deepEqual(r.json(), { message: 'Unauthorized' });
    for (const bad of [basic('test-customer', 'wrong'), basic('nobody', 'test-secret'), 'Bearer abc', 'Basic !!!', 'Basic ' + Buffer.from('nocolon').toString('base64')]) {
      r = await post({ authorization: bad });
      assert.equal(r.statusCode, 401, bad);
      assert.deepEqual(r.json(), { message: 'Invalid authentication credentials' });
    }
    r = await post({ authorization: TEST_AUTH }, '/v1/apps/00000000000000000000000000000000/cloud_recording/acquire');
    assert.equal(r.statusCode, 400);
    assert.deepEqual(r.json(), { message: 'appid is invalid' });
    // A known app of another customer: the credentials do not match the app.
    r = await post({ authorization: TEST_AUTH }, `/v1/apps/${OTHER_APP}/cloud_recording/acquire`);
    assert.equal(r.statusCode, 401);
    assert.deepEqual(r.json(), { message: 'Invalid authentication credentials' });
    r = await post({ authorization: basic('other', 'other-secret') }, `/v1/apps/${OTHER_APP}/cloud_recording/acquire`);
    assert.equal(r.statusCode, 200);

    for (const [method, u] of [
      ['GET', url],
      ['POST', `/v1/apps/${TEST_APP_ID}/acquire`],
      ['POST', `/v1/apps/${TEST_APP_ID}/cloud_recording/resourceid/x/sid/y/mode/mix/query`],
      ['DELETE', `/v1/apps/${TEST_APP_ID}/cloud_recording/acquire`],
      ['GET', '/v1/nothing'],
    ] as const) {
      const res = await app.inject({ method, url: u, headers: { authorization: TEST_AUTH } });
      assert.equal(res.statusCode, 404, `${method} ${u}`);
      assert.deepEqual(res.json(), { message: 'no Route matched with those values' });
    }
    // Outside /v1 the default 404 of the server is untouched.
    const other = await app.inject({ method: 'GET', url: '/not-v1' });
    assert.equal(other.statusCode, 404);
    assert.notDeepEqual(other.json(), { message: 'no Route matched with those values' });
  } finally {
    await server.close();
  }
});

test('gateway: bodies without Content-Type are JSON; bad JSON and wrong types get code 8 naming the body', async () => {
  const server = await startTestServer({ recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
  try {
    const url = `/v1/apps/${TEST_APP_ID}/cloud_recording/acquire`;
    const send = (headers: Record<string, string>, payload: string) =>
      server.app.inject({ method: 'POST', url, headers: { authorization: TEST_AUTH, ...headers }, payload });
    let r = await send({}, JSON.stringify({ cname: 'c', uid: '1' }));
    assert.equal(r.statusCode, 200);
    r = await send({ 'content-type': 'text/plain' }, JSON.stringify({ cname: 'c', uid: '2' }));
    assert.equal(r.statusCode, 200);
    r = await send({ 'content-type': 'application/json;charset=utf-8' }, '{"cname":');
    assert.equal(r.statusCode, 400);
    assert.deepEqual(r.json(), { code: 8, reason: 'body: must be valid JSON' });
    r = await send({ 'content-type': 'application/json' }, '');
    assert.deepEqual(r.json(), { code: 8, reason: 'body: must not be empty' });
    r = await send({ 'content-type': 'application/json' }, '{"__proto__":{"x":1},"cname":"c","uid":"1"}');
    assert.equal(r.statusCode, 400);
    r = await send({ 'content-type': 'application/json' }, '[1,2]');
    assert.deepEqual(r.json(), { code: 2, reason: 'body: must be a JSON object' });
    r = await send({ 'content-type': 'application/json' }, 'x'.repeat(1024 * 1024 + 10));
    assert.equal(r.statusCode, 413);
    assert.equal(r.json().code, 8);
  } finally {
    await server.close();
  }
});

test('gateway: per-app token bucket answers 429 past the rate and refills with the clock', async () => {
  const clock = new ManualClock();
  const server = await startTestServer({
    clock,
    recorders: allDoubles(),
    values: { recording: { rateLimitPerSecond: 2, rateLimitBurst: 3 } },
  });
  try {
    const api = recordingClient(server.app);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.acquire({ cname: 'c', uid: String(i + 1) })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const limited = await api.acquire({ cname: 'c', uid: '9' });
    assert.deepEqual(limited.body, { message: 'API rate limit exceeded' });
    clock.advance(500);
    assert.equal((await api.acquire({ cname: 'c', uid: '10' })).status, 200);
    assert.equal((await api.acquire({ cname: 'c', uid: '11' })).status, 429);
    clock.advance(10_000);
    for (let i = 0; i < 3; i++) assert.equal((await api.acquire({ cname: 'c', uid: String(20 + i) })).status, 200);
  } finally {
    await server.close();
  }
});

test('GET /v1/ncs/ip lists the notifier addresses behind Basic auth', async () => {
  const server = await startTestServer({ recorders: allDoubles() });
  try {
    const r = await server.app.inject({ method: 'GET', url: '/v1/ncs/ip', headers: { authorization: TEST_AUTH } });
    assert.equal(r.statusCode, 200);
    const hosts = r.json().data.service.hosts as { primaryIP: string }[];
    assert.ok(hosts.length >= 1);
    for (const h of hosts) assert.equal(typeof h.primaryIP, 'string');
    const anon = await server.app.inject({ method: 'GET', url: '/v1/ncs/ip' });
    assert.equal(anon.statusCode, 401);
  } finally {
    await server.close();
  }
});
