// Who may ask for chat tokens in production (issue 25, item 1): nobody anonymously, app backends with the
// customer's Basic credentials, end clients with a signed assertion for their own user name only.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { verifyChatApp, verifyChatUser } from '@reeltime/token';
import { loadConfig } from '../../server/config.ts';
import { startServerProcess, startTestServer, testServerEnv, type TestServer, TEST_CUSTOMER_AUTH } from '../../testing/index.ts';
import { waitUntil } from '../../testing/index.ts';
import { NodeWebSocket } from '../gateway/test-helpers.ts';
import { ChatTokenSession, type TextMessage } from '../sdk/index.ts';
import { signUserAssertion } from './caller-auth.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const OTHER_APP_ID = '0123456789abcdef0123456789abcdef';
const SECRET = 'assertion-secret-of-the-apps-login-0123456789';
const BASIC = TEST_CUSTOMER_AUTH;
const nowSec = () => Math.floor(Date.now() / 1000);
const ctx = () => ({ appId: APP_ID, appCertificate: CERT, now: nowSec() });
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function get(s: TestServer, path: string, authorization?: string): Promise<Response> {
  return fetch(`${s.url}${path}`, authorization === undefined ? {} : { headers: { authorization } });
}

/** The user's record as the users API gives it to an app token fetched by the app backend. */
async function lookUp(s: TestServer, name: string): Promise<{ status: number; uuid: string | undefined }> {
  const app = await get(s, '/chat/app/token', BASIC);
  assert.equal(app.status, 200);
  const r = await get(s, `/reeltime/default/users/${name}`, `Bearer ${await app.text()}`);
  const body = (await r.json()) as { entities?: { uuid: string }[] };
  return { status: r.status, uuid: body.entities?.[0]?.uuid };
}

test('production: anonymous callers get no chat token and register nobody; Basic customers and a user\'s own assertion do', async () => {
  const s = await startTestServer({ env: { REELTIME_ENV: 'production', REELTIME_CHAT_ASSERTION_SECRET: SECRET } });
  try {
    // Anonymous: the app token (which opens the users API) and any user's token are refused, readable cross-origin.
    const anonApp = await get(s, '/chat/app/token');
    assert.equal(anonApp.status, 401);
    assert.equal(await anonApp.text(), 'authentication required: send the customer\'s Basic credentials');
    assert.equal(anonApp.headers.get('www-authenticate'), 'Basic realm="reeltime chat tokens"');
    assert.equal(anonApp.headers.get('access-control-allow-origin'), '*');
    const anonUser = await get(s, '/chat/user/mallory/token');
    assert.equal(anonUser.status, 401);
    assert.match(await anonUser.text(), /^authentication required: send the customer's Basic credentials or a Bearer assertion/);
    assert.equal(anonUser.headers.get('www-authenticate'), 'Basic realm="reeltime chat tokens", Bearer realm="reeltime chat tokens"');
    const wrong = await get(s, '/chat/user/mallory/token', `Basic ${Buffer.from('test-customer:guess').toString('base64')}`);
    assert.equal(wrong.status, 401);
    assert.equal(await wrong.text(), 'the Basic credentials are not those of a customer of this app');
    assert.equal((await get(s, '/chat/app/token', 'Basic !!!')).status, 401);
    assert.equal((await get(s, '/reeltime/default/users/mallory')).status, 401, 'the users API still wants an app token');

    // The app backend: its customer's Basic credentials get the app token and any user's token.
    const app = await get(s, '/chat/app/token', BASIC);
    assert.equal(app.status, 200);
    assert.equal(app.headers.get('cache-control'), 'no-store');
    assert.ok(verifyChatApp(await app.text(), ctx()).ok);
    assert.equal((await lookUp(s, 'mallory')).status, 404, 'the anonymous requests registered nobody');
    const bobToken = await get(s, '/chat/user/bob/token', BASIC);
    assert.equal(bobToken.status, 200);
    const bob = await lookUp(s, 'bob');
    assert.ok(verifyChatUser(await bobToken.text(), { ...ctx(), uuid: bob.uuid! }).ok);

    // An end client's assertion (from the app's login) gets its own user's token, nothing else.
    const alice = `Bearer ${signUserAssertion(SECRET, 'alice', nowSec() + 300)}`;
    const own = await get(s, '/chat/user/alice/token', alice);
    assert.equal(own.status, 200);
    const aliceUuid = (await lookUp(s, 'alice')).uuid!;
    assert.ok(verifyChatUser(await own.text(), { ...ctx(), uuid: aliceUuid }).ok);
    const other = await get(s, '/chat/user/bob/token', alice);
    assert.equal(other.status, 403);
    assert.equal(await other.text(), 'the Bearer assertion is for another user');
    const newName = await get(s, '/chat/user/carol/token', alice);
    assert.equal(newName.status, 403);
    assert.equal((await lookUp(s, 'carol')).status, 404, 'a refused assertion registers nobody');
    const appByAssertion = await get(s, '/chat/app/token', alice);
    assert.equal(appByAssertion.status, 403);
    assert.match(await appByAssertion.text(), /never gets the app token/);
    assert.equal((await get(s, '/chat/app/token', 'Bearer not-a-jwt')).status, 401, 'a bad assertion is no credential');

    // Expired, tampered, foreign-signed and unsigned assertions are refused as credentials (401).
    const [h, , sig] = signUserAssertion(SECRET, 'alice', nowSec() + 300).split('.');
    const bad: [string, string][] = [
      [signUserAssertion(SECRET, 'alice', nowSec() - 1), 'the Bearer assertion has expired'],
      [`${h}.${b64url({ sub: 'bob', exp: nowSec() + 300 })}.${sig}`, 'the Bearer assertion\'s signature does not match'],
      [signUserAssertion('another-secret-0123456789-0123456789', 'bob', nowSec() + 300), 'the Bearer assertion\'s signature does not match'],
      [`${b64url({ alg: 'none' })}.${b64url({ sub: 'bob', exp: nowSec() + 300 })}.x`, 'the Bearer assertion\'s signature does not match'],
      [signUserAssertion(SECRET, 'bob', nowSec() + 2 * 86400), 'the Bearer assertion expires more than 86400 seconds from now'],
      ['not-a-jwt', 'the Bearer assertion is not a well-formed HS256 JWT with "sub" and "exp"'],
    ];
    // Rightly signed but with another algorithm named in its header: still refused.
    const hs512Header = b64url({ alg: 'HS512' });
    const hs512Payload = b64url({ sub: 'bob', exp: nowSec() + 300 });
    const hs512Sig = createHmac('sha256', SECRET).update(`${hs512Header}.${hs512Payload}`).digest('base64url');
    bad.push([`${hs512Header}.${hs512Payload}.${hs512Sig}`, 'the Bearer assertion is not a well-formed HS256 JWT with "sub" and "exp"']);
    for (const [assertion, reason] of bad) {
      const r = await get(s, '/chat/user/bob/token', `Bearer ${assertion}`);
      assert.equal(r.status, 401, assertion);
      assert.equal(await r.text(), reason);
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="reeltime chat tokens", error="invalid_token"');
    }

    // Browsers: the preflight allows the Authorization header by name (a `*` would not cover it).
    const pre = await fetch(`${s.url}/chat/user/alice/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.equal(pre.headers.get('access-control-allow-headers'), 'Authorization');
  } finally {
    await s.close();
  }
});

test('production: the spec\'s flow for authenticated callers: tokens from the token server log in on the gateway and exchange messages', async () => {
  const s = await startTestServer({ env: { REELTIME_ENV: 'production', REELTIME_CHAT_ASSERTION_SECRET: SECRET } });
  const received: TextMessage[] = [];
  const session = (user: string, authorization: () => string | undefined) =>
    new ChatTokenSession({
      tokenServerUrl: s.url,
      gatewayUrl: `${s.url.replace(/^http/, 'ws')}/chat/ws`,
      user,
      WebSocket: NodeWebSocket,
      authorization,
      listeners: { onTextMessage: (m) => received.push(m) },
    });
  // An end client with its login's assertion, and a user whose token the app backend fetches with Basic.
  const dave = session('dave', () => `Bearer ${signUserAssertion(SECRET, 'dave', nowSec() + 600)}`);
  const erin = session('erin', () => BASIC);
  const anonymous = session('frank', () => undefined);
  try {
    assert.equal((await dave.start()).user, 'dave');
    assert.equal((await erin.start()).user, 'erin');
    await dave.sendTextMessage('erin', 'hello erin');
    await waitUntil(() => received.length === 1, { what: 'erin receives' });
    assert.deepEqual([received[0]!.from, received[0]!.to, received[0]!.text], ['dave', 'erin', 'hello erin']);
    await dave.renew();
    assert.equal(dave.counts.renewals, 1);
    await assert.rejects(anonymous.start(), /token server answered 401: authentication required/);
  } finally {
    dave.stop();
    erin.stop();
    anonymous.stop();
    await s.close();
  }
});

test('chat.tokenAuth: checked at start; production refuses a token server nobody can authenticate to unless "open" is explicit, and warns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-chat-auth-'));
  const env = (more: Record<string, string>) => ({ ...testServerEnv(dir), REELTIME_ENV: 'production', ...more });
  try {
    assert.throws(() => loadConfig({ cwd: dir, env: env({ REELTIME_CHAT_TOKEN_AUTH: 'maybe' }) }), /REELTIME_CHAT_TOKEN_AUTH \(chat\.tokenAuth\): must be "open" or "required"/);
    assert.throws(() => loadConfig({ cwd: dir, env: env({ REELTIME_CHAT_ASSERTION_SECRET: 'short' }) }), /REELTIME_CHAT_ASSERTION_SECRET \(chat\.assertionSecret\): must be at least 32/);
    // Development keeps the spec's open token server by default; production defaults to "required".
    assert.equal(loadConfig({ cwd: dir, env: testServerEnv(dir) }).chat.tokenAuth.mode, 'open');
    assert.equal(loadConfig({ cwd: dir, env: env({}) }).chat.tokenAuth.mode, 'required');

    // Tokens signed for an app no customer may use, and no assertion secret: nobody could authenticate.
    const noCaller = { REELTIME_CHAT_APPID: OTHER_APP_ID };
    await assert.rejects(
      startServerProcess({ dataDir: dir, env: env(noCaller) }),
      /exited before it was ready \(2\)[\s\S]*REELTIME_CHAT_TOKEN_AUTH \(chat\.tokenAuth\): is "required" \(the production default\) but no caller can authenticate/,
    );
    const open = await startServerProcess({ dataDir: dir, env: env({ ...noCaller, REELTIME_CHAT_TOKEN_AUTH: 'open' }) });
    try {
      assert.match(open.output(), /chat\.tokenAuth is \\?"open\\?" in production: anyone who reaches this port gets the chat app token/);
      assert.equal((await fetch(`${open.url}/chat/app/token`)).status, 200, 'open, as configured');
    } finally {
      await open.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reeltime chat-token-server --config file.properties in production: refused without a way to authenticate', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-props-'));
  const file = join(dir, 'token.properties');
  writeFileSync(file, `server.port=0\nappid=${APP_ID}\nappcert=${CERT}\nappkey=reeltime#default\ndomain=127.0.0.1:1\n`);
  const saved = { env: process.env.REELTIME_ENV, auth: process.env.REELTIME_CHAT_TOKEN_AUTH };
  try {
    process.env.REELTIME_ENV = 'production';
    delete process.env.REELTIME_CHAT_TOKEN_AUTH;
    const { main } = await import('../../cli/main.ts');
    const write = process.stderr.write;
    let err = '';
    process.stderr.write = ((chunk: string | Uint8Array) => ((err += String(chunk)), true)) as typeof process.stderr.write;
    let code: number;
    try {
      code = await main(['chat-token-server', '--config', file]);
    } finally {
      process.stderr.write = write;
    }
    assert.equal(code, 2);
    assert.match(err, /REELTIME_CHAT_TOKEN_AUTH \(chat\.tokenAuth\): is "required" .*no caller can authenticate/);
  } finally {
    if (saved.env === undefined) delete process.env.REELTIME_ENV;
    else process.env.REELTIME_ENV = saved.env;
    if (saved.auth !== undefined) process.env.REELTIME_CHAT_TOKEN_AUTH = saved.auth;
    rmSync(dir, { recursive: true, force: true });
  }
});
