// What the HTTP server does for every module (docs/configuration.md, "HTTP limits"): requests that do not arrive in
// time are cut off, a body nobody will read is not read, failed logins are throttled, every 429 says when to retry,
// pages carry a Content-Security-Policy and every response `nosniff`; production refuses short secrets.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { ManualClock } from '../clock/index.ts';
import { ConfigError } from '../config/index.ts';
import { LOGIN_FAILURES_TOPIC } from '../http/index.ts';
import { TEST_APP_ID, TEST_AUTH, allDoubles } from '../recording/testing/index.ts';
import { deleteTestKeys, requireTestRedis, TEST_REDIS_URL, testRedisPrefix } from '../redis/testing.ts';
import { startTestServer, testServerEnv, waitUntil, type TestServer } from '../testing/index.ts';
import { loadConfig } from './config.ts';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function server(opts: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer({ recorders: allDoubles(), ...opts });
  servers.push(s);
  return s;
}

const acquirePath = `/v1/apps/${TEST_APP_ID}/cloud_recording/acquire`;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** A raw connection: what the server answered, and a promise that settles when the connection ends either way. */
function rawConnection(url: string): { socket: Socket; answer: () => string; closed: Promise<void> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (d: Buffer) => void (answer += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, answer: () => answer, closed };
}

test('a body trickled slower than the request timeout is answered 408 and its connection closed (acquire, users API, WHIP)', async () => {
  const s = await server({ env: { REELTIME_HTTP_REQUEST_TIMEOUT_MS: '800', REELTIME_HTTP_HEADERS_TIMEOUT_MS: '400' } });
  const declared = 4000;
  for (const [path, auth] of [
    [acquirePath, TEST_AUTH],
    ['/reeltime/default/users', 'Bearer whatever'],
    [`/rtc/v1/apps/${TEST_APP_ID}/channels/c/whip`, 'Bearer not-a-token'],
  ] as const) {
    const c = rawConnection(s.url);
    c.socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    // One byte every 25 ms would take 100 s to send the declared body; the server must give up long before.
    let sent = 0;
    let open = true;
    void c.closed.then(() => void (open = false));
    while (open && sent < declared) {
      await new Promise((r) => setTimeout(r, 25));
      if (!open) break;
      c.socket.write(' ');
      sent++;
    }
    await c.closed;
    assert.ok(sent < declared, `${path}: the connection stayed open for the whole body`);
    assert.match(c.answer(), /^HTTP\/1\.1 408 /, path);
  }
});

test('an endless chunked body without credentials is answered (401, or 413 where the body comes first) and the connection closed: the body is not read on', async () => {
  const s = await server();
  for (const [path, status] of [
    [acquirePath, 401],
    [`/v1/apps/${TEST_APP_ID}/cloud_recording/resourceid/r/mode/mix/start`, 401],
    // The users API reads its body before the app token: the 1 MiB body limit stops it.
    ['/reeltime/default/users', 413],
    [`/rtc/v1/apps/${TEST_APP_ID}/channels/c/whip`, 413],
  ] as const) {
    const c = rawConnection(s.url);
    c.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    const cap = 512 * 1024 * 1024;
    let written = 0;
    let open = true;
    void c.closed.then(() => void (open = false));
    while (open && written < cap) {
      if (!c.socket.write(frame)) {
        await new Promise<void>((resolve) => {
          c.socket.once('drain', resolve);
          void c.closed.then(resolve);
        });
      }
      written += frame.length;
    }
    c.socket.destroy();
    await c.closed;
    assert.ok(written < 64 * 1024 * 1024, `${path}: ${written} bytes were accepted after the answer`);
    assert.match(c.answer(), new RegExp(`^HTTP/1\\.1 ${status} `), path);
    assert.match(c.answer(), /\r\nconnection: close\r\n/i, path);
  }
});

test('failed Basic logins: 429 with Retry-After per address after the limit, for the right secret too, shared with the bucket and the channel routes; refilled with time', async () => {
  const clock = new ManualClock();
  const s = await server({
    clock,
    env: { REELTIME_ENV: 'production', REELTIME_HTTP_LOGIN_FAILURES_PER_MINUTE_PER_ADDRESS: '5' },
    values: { storage: { routeAllToLocal: true, serveBucket: true } },
  });
  const acquire = (authorization: string) =>
    fetch(`${s.url}${acquirePath}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"cname":"c","uid":"1"}' });
  assert.equal((await acquire(TEST_AUTH)).status, 200);
  const channels = (authorization: string) => fetch(`${s.url}/rtc/v1/apps/${TEST_APP_ID}/channels`, { headers: { authorization } });
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await acquire(basic('test-customer', `guess-${i}`))).status);
  // The fourth failure is on the channel list, the fifth on the bucket: every Basic route counts together.
  statuses.push((await channels(basic('test-customer', 'guess-3'))).status);
  statuses.push((await fetch(`${s.url}/bucket/rec/x.ts`, { headers: { authorization: basic('test-customer', 'guess-4') } })).status);
  assert.deepEqual(statuses, [401, 401, 401, 401, 403]);
  const refused = await acquire(basic('test-customer', 'guess-5'));
  assert.equal(refused.status, 429);
  const wait = Number(refused.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${refused.headers.get('retry-after')}`);
  // Even the right secret: a guess that hits must not be told so.
  assert.equal((await acquire(TEST_AUTH)).status, 429);
  const bucket = await fetch(`${s.url}/bucket/rec/x.ts`, { headers: { authorization: TEST_AUTH } });
  assert.equal(bucket.status, 429);
  assert.ok(Number(bucket.headers.get('retry-after')) >= 1);
  const channelList = await channels(TEST_AUTH);
  assert.equal(channelList.status, 429);
  assert.equal(((await channelList.json()) as { error: string }).error, 'too_many_failed_logins');
  assert.equal(channelList.headers.get('retry-after'), refused.headers.get('retry-after'));
  clock.advance(wait * 1000);
  assert.equal((await acquire(TEST_AUTH)).status, 200, 'a failure is forgiven after Retry-After');
});

test('failed Basic logins: 429 per customer id whatever the address', async () => {
  const clock = new ManualClock();
  const s = await server({
    clock,
    env: { REELTIME_HTTP_LOGIN_FAILURES_PER_MINUTE_PER_ADDRESS: '0', REELTIME_HTTP_LOGIN_FAILURES_PER_MINUTE_PER_CUSTOMER: '3' },
  });
  const acquire = (authorization: string, remoteAddress: string) =>
    s.app.inject({ method: 'POST', url: acquirePath, remoteAddress, headers: { authorization }, payload: { cname: 'c', uid: '1' } });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await acquire(basic('test-customer', `guess-${i}`), `192.0.2.${i + 1}`)).statusCode);
  assert.deepEqual(statuses, [401, 401, 401, 429]);
  assert.ok(Number((await acquire(TEST_AUTH, '192.0.2.99')).headers['retry-after']) >= 1);
  assert.equal((await acquire(basic('other-id', 'x'), '192.0.2.99')).statusCode, 401, 'another id is not held up');
});

test('failed Basic logins behind a load balancer: two processes on one Redis count them together', async () => {
  await requireTestRedis();
  const prefix = testRedisPrefix();
  const env = { REDIS_URL: TEST_REDIS_URL, REELTIME_REDIS_PREFIX: prefix, REELTIME_HTTP_LOGIN_FAILURES_PER_MINUTE_PER_ADDRESS: '5' };
  try {
    const [a, b] = [await server({ roles: ['channel'], env }), await server({ roles: ['channel'], env })];
    // Each process subscribes in the background (a Redis that is down at start must not hold it up): both first.
    const raw = new Redis(TEST_REDIS_URL);
    try {
      await waitUntil(async () => Number(((await raw.pubsub('NUMSUB', `${prefix}bus:${LOGIN_FAILURES_TOPIC}`)) as [string, number])[1]) >= 2, {
        what: 'both processes subscribed to the failed logins',
      });
    } finally {
      raw.disconnect();
    }
    const list = (s: TestServer, authorization: string) =>
      s.app.inject({ method: 'GET', url: `/rtc/v1/apps/${TEST_APP_ID}/channels`, remoteAddress: '198.51.100.7', headers: { authorization } });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await list(a, basic('test-customer', `guess-a${i}`))).statusCode);
    for (let i = 0; i < 2; i++) statuses.push((await list(b, basic('test-customer', `guess-b${i}`))).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401]);
    // The bus delivers in the background: each process has heard of the other's five failures in all.
    await waitUntil(async () => (await list(a, TEST_AUTH)).statusCode === 429 && (await list(b, TEST_AUTH)).statusCode === 429, {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "both processes refusing the address after five failures between them",
    });
    assert.ok(Number((await list(b, basic('test-customer', 'guess'))).headers['retry-after']) >= 1);
    const other = await a.app.inject({ method: 'GET', url: `/rtc/v1/apps/${TEST_APP_ID}/channels`, remoteAddress: '198.51.100.8', headers: { authorization: TEST_AUTH } });
    assert.equal(other.statusCode, 200, 'another address is not held up');
  } finally {
    await deleteTestKeys(prefix);
  }
});

test('every 429 carries Retry-After: the recording API rate limit, the users API rate limit; vendor_over_load too', async () => {
  const clock = new ManualClock();
  const s = await server({
    clock,
    values: { recording: { rateLimitPerSecond: 1, rateLimitBurst: 1, maxConcurrentTasks: 1 }, chat: { restRateLimit: 1 } },
  });
  const acquire = (cname: string) =>
    fetch(`${s.url}${acquirePath}`, { method: 'POST', headers: { authorization: TEST_AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ cname, uid: '1' }) });
  assert.equal((await acquire('a')).status, 200);
  const limited = await acquire('b');
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '1');
  clock.advance(1000);
  const over = await acquire('b');
  assert.equal(((await over.json()) as { code: number }).code, 406, 'one resource per app at most');
  assert.ok(Number(over.headers.get('retry-after')) >= 1);

  const users = () => fetch(`${s.url}/reeltime/default/users/someone`);
  assert.notEqual((await users()).status, 429);
  const chatLimited = await users();
  assert.equal(chatLimited.status, 429);
  assert.equal(chatLimited.headers.get('retry-after'), '1');
});

test('pages carry a Content-Security-Policy (frame-ancestors none), nosniff and no referrer; every response nosniff', async () => {
  const s = await server();
  for (const path of ['/', '/docs', '/rtc/']) {
    const r = await fetch(`${s.url}${path}`);
    assert.equal(r.status, 200, path);
    const csp = r.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.match(csp, /script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*;/, path);
    assert.match(csp, /object-src 'none'/, path);
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/, path);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer', path);
    assert.equal(r.headers.get('x-frame-options'), 'DENY', path);
  }
  // The console's inline import map and the docs page's inline module are allowed by their hashes, nothing else.
  assert.match((await fetch(`${s.url}/`)).headers.get('content-security-policy') ?? '', /script-src 'self' 'sha256-/);
  assert.match((await fetch(`${s.url}/`)).headers.get('content-security-policy') ?? '', /media-src [^;]*blob:/);
  for (const path of ['/openapi.json', '/console/app.js', '/healthz', '/no/such/path', acquirePath]) {
    const r = await fetch(`${s.url}${path}`);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
  }
});

test('production refuses short secrets at start, naming the setting and the rule; configured and generated 32-hex credentials pass', () => {
  const cwd = '/nonexistent-reeltime-test';
  const prod = (env: Record<string, string>, values = {}) =>
    loadConfig({ cwd, values, env: { ...testServerEnv(cwd), REELTIME_ENV: 'production', ...env } });
  const refused = (fn: () => unknown, setting: RegExp) =>
    assert.throws(fn, (e: unknown) => e instanceof ConfigError && setting.test(e.message) && /at least 16 characters in production/.test(e.message) && !/\bx{3}\b/.test(e.message));
  refused(() => prod({ REELTIME_CUSTOMER_SECRET: 'x' }), /REELTIME_CUSTOMER_SECRET \(customerSecret\)/);
  refused(() => prod({ REELTIME_RECORDING_CUSTOMERS: JSON.stringify([{ id: 'two', secret: 'xxx', appIds: [TEST_APP_ID] }]) }), /recording\.customers.*entry 0.*secret/);
  refused(() => prod({}, { notify: { webhooks: { [TEST_APP_ID]: { url: 'https://hooks.example/x', secret: 'xxx' } } } }), /notify\.webhooks\..*\.secret/);
  refused(() => prod({ REELTIME_NOTIFY_WEBHOOK_URL: 'https://hooks.example/x', REELTIME_NOTIFY_WEBHOOK_SECRET: 'xxx' }), /REELTIME_NOTIFY_WEBHOOK_SECRET/);
  assert.throws(() => prod({ REELTIME_METRICS_TOKEN: 'short' }), /REELTIME_METRICS_TOKEN.*at least 16/);
  assert.throws(() => prod({ REELTIME_APP_CERTIFICATE: 'abc' }), /REELTIME_APP_CERTIFICATE.*32 hexadecimal/);
  // Development keeps short ones; what development generates (32 hex digits each) passes production's rules.
  assert.equal(loadConfig({ cwd, env: { ...testServerEnv(cwd), REELTIME_CUSTOMER_SECRET: 'x' } }).customerSecret, 'x');
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-dev-credentials-'));
  try {
    const dev = loadConfig({ cwd: dir, env: { REELTIME_DATA_DIR: dir } });
    assert.equal(dev.generatedCredentials, true);
    const generated = {
      REELTIME_APP_ID: dev.appId,
      REELTIME_APP_CERTIFICATE: dev.appCertificate,
      REELTIME_CUSTOMER_ID: dev.customerId,
      REELTIME_CUSTOMER_SECRET: dev.customerSecret,
    };
    assert.equal(prod(generated).customerSecret, dev.customerSecret);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
