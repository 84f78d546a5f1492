import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildAppToken, buildUserToken } from '@reeltime/token';
import fc from 'fast-check';
import Fastify from 'fastify';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import { startTestServer } from '../../testing/index.ts';
import { RateLimiter } from '../../http/index.ts';
import { registerUsersRoutes } from './routes.ts';
import { ChatUserStore } from './store.ts';
import type { ChatApp } from './auth.ts';
import { openTestDatabase } from '../../testing/index.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const OTHER_ID = '0123456789abcdef0123456789abcdef';
const nowS = () => Math.floor(Date.now() / 1000);

interface ErrorBody {
  error: string;
  exception: string;
  timestamp: number;
  duration: number;
  error_description: string;
}

test('users API: register one, batch with duplicates, get, and every documented error', async () => {
  const s = await startTestServer();
  try {
    const base = `${s.url}/reeltime/default/users`;
    const token = buildAppToken(APP_ID, CERT, 600);
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const post = (body: string, headers: Record<string, string> = json) => fetch(base, { method: 'POST', headers, body });
    const err = async (res: Response, status: number, error: string, description: RegExp | string) => {
      assert.equal(res.status, status);
      const b = (await res.json()) as ErrorBody;
      assert.deepEqual(Object.keys(b), ['error', 'exception', 'timestamp', 'duration', 'error_description']);
      assert.equal(b.error, error);
      if (typeof description === 'string') assert.equal(b.error_description, description);
      else assert.match(b.error_description, description);
    };

    const one = await post(JSON.stringify({ username: 'Alice', password: 'secret-pw', nickname: 'Al' }));
    assert.equal(one.status, 200);
    const env = (await one.json()) as Record<string, unknown> & { entities: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(env), [
      'action', 'application', 'path', 'uri', 'entities', 'timestamp', 'duration', 'organization', 'applicationName',
    ]);
    assert.equal(env.action, 'post');
    assert.equal(env.path, '/users');
    assert.equal(env.uri, base);
    assert.equal(env.organization, 'reeltime');
    assert.equal(env.applicationName, 'default');
    const alice = env.entities[0]!;
    assert.deepEqual(Object.keys(alice).sort(), ['activated', 'created', 'modified', 'nickname', 'type', 'username', 'uuid']);
    assert.equal(alice.username, 'alice');
    assert.equal(alice.type, 'user');
    assert.equal(alice.activated, true);
    assert.ok(!JSON.stringify(env).includes('secret-pw'));

    const got = await fetch(`${base}/ALICE`, { headers: auth });
    assert.equal(got.status, 200);
    const g = (await got.json()) as { action: string; entities: unknown[]; count: number };
    assert.equal(g.action, 'get');
    assert.deepEqual(g.entities, [alice]);

    const batch = await post(JSON.stringify([{ username: 'bob', password: 'x' }, { username: 'alice' }, { username: 'carol' }]));
    assert.equal(batch.status, 200);
    const be = (await batch.json()) as { entities: { username: string }[]; data: unknown[] };
    assert.deepEqual(be.entities.map((e) => e.username), ['bob', 'carol']);
    assert.deepEqual(be.data, [{ username: 'alice', registerUserFailReason: 'the alice already exists' }]);

    await err(await post(JSON.stringify({ username: 'alice' })), 400, 'duplicate_unique_property_exists', /value of alice exists/);
    await err(await fetch(`${base}/nobody`, { headers: auth }), 404, 'service_resource_not_found', 'Service resource not found');
    await err(await post(JSON.stringify({ username: 'a b' })), 400, 'illegal_argument', 'username [a b] is not legal');
    await err(await post(JSON.stringify({ username: 'x'.repeat(65) })), 400, 'illegal_argument', 'USERNAME_TOO_LONG');
    await err(await fetch(`${base}/${'x'.repeat(500)}`, { headers: auth }), 400, 'illegal_argument', 'USERNAME_TOO_LONG');
    await err(await post(JSON.stringify({ password: 'p' })), 400, 'illegal_argument', 'Entity user requires a property named username');
    await err(await post(JSON.stringify(Array.from({ length: 61 }, (_, i) => ({ username: `u${i}` })))), 400, 'illegal_argument', /array size\[61\].*\[60\]/);
    await err(await post('[]'), 400, 'illegal_argument', /empty/);
    await err(await post('{"username": '), 400, 'json_parse', /Unexpected character/);
    await err(await post('{"username":"zed"}', { ...auth, 'content-type': 'text/plain' }), 415, 'web_application', 'Unsupported Media Type');
    await err(await post('{"username":"zed"}', { ...auth }), 415, 'web_application', 'Unsupported Media Type');

    // Authentication: missing, expired, corrupt, foreign, wrong privilege.
    await err(await post('{"username":"zed"}', { 'content-type': 'application/json' }), 401, 'unauthorized', 'Registration is not open, please contact the app admin.');
    await err(await fetch(`${base}/alice`), 401, 'unauthorized', 'Unable to authenticate (OAuth)');
    const expired = buildAppToken(APP_ID, CERT, 60, { issueTs: nowS() - 120 });
    await err(await fetch(`${base}/alice`, { headers: { authorization: `Bearer ${expired}` } }), 401, 'unauthorized', 'Unable to authenticate due to expired access token');
    await err(await fetch(`${base}/alice`, { headers: { authorization: 'Bearer 007garbage' } }), 401, 'auth_bad_access_token', 'Unable to authenticate due to corrupt access token');
    const foreign = buildAppToken(OTHER_ID, CERT, 600);
    await err(await fetch(`${base}/alice`, { headers: { authorization: `Bearer ${foreign}` } }), 401, 'unauthorized', 'token is illegal.');
    const forged = buildAppToken(APP_ID, OTHER_ID, 600);
    await err(await fetch(`${base}/alice`, { headers: { authorization: `Bearer ${forged}` } }), 401, 'auth_bad_access_token', 'Unable to authenticate');
    const userToken = buildUserToken(APP_ID, CERT, String(alice.uuid), 600);
    await err(await fetch(`${base}/alice`, { headers: { authorization: `Bearer ${userToken}` } }), 401, 'unauthorized', 'token is illegal.');
    await err(await fetch(`${s.url}/someorg/someapp/users/alice`, { headers: auth }), 404, 'organization_application_not_found', /someorg\/someapp/);

    // The Web SDK's renewal asks for a user token's expiry, authenticated by that token.
    const expires = await fetch(`${s.url}/reeltime/default/sdk/users/alice/token/expires`, { headers: { authorization: `Bearer ${userToken}` } });
    assert.equal(expires.status, 200);
    const exp = (await expires.json()) as { expire_timestamp: number };
    assert.ok(Math.abs(exp.expire_timestamp - (nowS() + 600) * 1000) <= 5000);
    await err(await fetch(`${s.url}/reeltime/default/sdk/users/bob/token/expires`, { headers: { authorization: `Bearer ${userToken}` } }), 401, 'unauthorized', 'token is illegal.');
    await err(await fetch(`${s.url}/reeltime/default/sdk/users/alice/token/expires`, { headers: auth }), 401, 'unauthorized', 'token is illegal.');
    await err(await fetch(`${s.url}/reeltime/default/sdk/users/alice/other`, { headers: auth }), 404, 'web_application', 'Not Found');

    // Other modules' paths keep working beside the two-parameter routes.
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${s.url}/chat/app/token`)).status, 200);
  } finally {
    await s.close();
  }
});

test('users API: an app token valid for more than 24 hours is refused (the spec\'s maximum)', async () => {
  const s = await startTestServer();
  try {
    const res = await fetch(`${s.url}/reeltime/default/users/alice`, { headers: { authorization: `Bearer ${buildAppToken(APP_ID, CERT, 7 * 86400)}` } });
    assert.equal(res.status, 401);
    const b = (await res.json()) as ErrorBody;
    assert.equal(b.error, 'unauthorized');
    assert.equal(b.error_description, 'token is illegal: valid for more than 24 hours');
    const day = await fetch(`${s.url}/reeltime/default/users/alice`, { headers: { authorization: `Bearer ${buildAppToken(APP_ID, CERT, 86400)}` } });
    assert.equal(day.status, 404);
  } finally {
    await s.close();
  }
});

test('users API routes do not swallow other modules\' routes', async () => {
  const h = await openTestDatabase('sqlite');
  const app = Fastify();
  try {
    const hit = (name: string) => async () => ({ hit: name });
    app.get('/healthz', hit('healthz'));
    app.post('/v1/apps/:appid/cloud_recording/acquire', hit('acquire'));
    app.get('/v1/apps/:appid/cloud_recording/resourceid/:rid/sid/:sid/mode/:mode/query', hit('query'));
    app.get('/rtc/v1/apps/:appId/channels/:cname', hit('channel'));
    app.get('/bucket/*', hit('bucket'));
    app.get('/chat/app/token', hit('token'));
    const clock = new ManualClock();
    const chatApp: ChatApp = { org: 'o', app: 'a', appId: APP_ID, appCertificate: CERT, applicationUuid: 'x' };
    await registerUsersRoutes(app, {
      store: new ChatUserStore(h.db, clock),
      clock,
      log: createLogger('silent'),
      limiter: new RateLimiter(() => clock.now(), 0),
      findApp: (o, a) => (o === 'o' && a === 'a' ? chatApp : undefined),
    });
    const cases: [string, string, string][] = [
      ['GET', '/healthz', 'healthz'],
      ['POST', '/v1/apps/abc/cloud_recording/acquire', 'acquire'],
      ['GET', '/v1/apps/abc/cloud_recording/resourceid/r/sid/s/mode/mix/query', 'query'],
      ['GET', '/rtc/v1/apps/abc/channels/c1', 'channel'],
      ['GET', '/bucket/o/a/users/x', 'bucket'],
      ['GET', '/bucket/users', 'bucket'],
      ['GET', '/chat/app/token', 'token'],
    ];
    for (const [method, url, name] of cases) {
      const r = await app.inject({ method: method as 'GET', url });
      assert.deepEqual(r.json(), { hit: name }, url);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/o/a/users/x' })).statusCode, 401);
  } finally {
    await app.close();
    await h.close();
  }
});

test('users API: rate limit of 100 requests per second per app key answers 429 reach_limit', async () => {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer({ clock });
  try {
    const token = buildAppToken(APP_ID, CERT, 600, { issueTs: Math.floor(clock.now() / 1000) });
    const req = () => s.app.inject({ method: 'GET', url: '/reeltime/default/users/nobody', headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 100; i++) assert.equal((await req()).statusCode, 404);
    const limited = await req();
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error, 'reach_limit');
    clock.advance(1000);
    assert.equal((await req()).statusCode, 404);
  } finally {
    await s.close();
  }
});

test('users API: paths the router resolves away under /{org}/{app}/ answer in the chat error body', async () => {
  const s = await startTestServer();
  try {
    const headers = { authorization: `Bearer ${buildAppToken(APP_ID, CERT, 600)}` };
    for (const url of ['/reeltime/default/users/..', '/reeltime/default/users/%2e%2e', '/reeltime/default/nothing', '/reeltime/default/users/%zz']) {
      const res = await s.app.inject({ method: 'GET', url, headers });
      assert.ok(res.statusCode === 404 || res.statusCode === 400, `${url}: ${res.statusCode}`);
      const b = res.json() as ErrorBody;
      assert.equal(b.error, 'web_application', url);
      assert.equal(typeof b.error_description, 'string', url);
    }
    // Other prefixes keep the server's plain body.
    assert.deepEqual((await s.app.inject({ method: 'GET', url: '/nothing/here/x' })).json(), { error: 'not_found', reason: 'no route for this method and path' });
  } finally {
    await s.close();
  }
});

test('users API: 10,000 hostile requests get 4xx with the chat error body, never a crash or a 500', async () => {
  const s = await startTestServer({ values: { chat: { restRateLimit: 0 } } });
  try {
    const token = buildAppToken(APP_ID, CERT, 3600);
    const types = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', ''];
    const body = fc.oneof(
      fc.json(),
      fc.string({ maxLength: 200 }),
      fc.array(fc.record({ username: fc.string({ maxLength: 80 }), password: fc.oneof(fc.string(), fc.integer()), nickname: fc.string({ maxLength: 120 }) }, { requiredKeys: [] }), { maxLength: 70 }).map((a) => JSON.stringify(a)),
      fc.record({ username: fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.constant(null)) }).map((o) => JSON.stringify(o)),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    const arb = fc.record({
      method: fc.constantFrom('POST', 'GET', 'GET', 'POST'),
      type: fc.constantFrom(...types),
      body,
      name: fc.string({ maxLength: 120 }),
      auth: fc.constantFrom('good', 'good', 'good', 'none', 'junk'),
    });
    let n = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(arb, async (r) => {
        n++;
        const headers: Record<string, string> = {};
        if (r.auth === 'good') headers.authorization = `Bearer ${token}`;
        if (r.auth === 'junk') headers.authorization = `Bearer ${r.name}`;
        const res =
          r.method === 'POST'
            ? await s.app.inject({ method: 'POST', url: '/reeltime/default/users', headers: { ...headers, ...(r.type ? { 'content-type': r.type } : {}) }, payload: r.body })
            : await s.app.inject({ method: 'GET', url: `/reeltime/default/users/${encodeURIComponent(r.name)}`, headers });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
        if (res.statusCode >= 400) {
          const b = res.json() as ErrorBody;
          assert.equal(typeof b.error, 'string');
          assert.equal(typeof b.error_description, 'string');
          assert.ok(!res.body.includes('    at '), 'no stack traces');
        }
      }),
      { numRuns: 10_000 },
    );
    assert.equal(n, 10_000);
    assert.ok((statuses.get(400) ?? 0) > 1000, JSON.stringify([...statuses]));
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
  } finally {
    await s.close();
  }
});
