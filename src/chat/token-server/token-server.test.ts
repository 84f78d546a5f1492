import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseToken, verifyChatApp, verifyChatUser } from '@reeltime/token';
import { ManualClock } from '../../clock/index.ts';
import type { JsonObject } from '../../config/index.ts';
import { spawnChild } from '../../process/index.ts';
import { startTestServer, waitUntil } from '../../testing/index.ts';
import type { ChatModule } from '../module.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const ROOT = new URL('../../../', import.meta.url).pathname;
const ctx = (now: number) => ({ appId: APP_ID, appCertificate: CERT, now });

async function uuidOf(base: string, name: string): Promise<string> {
  const app = await (await fetch(`${base}/chat/app/token`)).text();
  const r = await fetch(`${base}/reeltime/default/users/${name}`, { headers: { authorization: `Bearer ${app}` } });
  assert.equal(r.status, 200);
  return ((await r.json()) as { entities: { uuid: string }[] }).entities[0]!.uuid;
}

test('token server: app token and user token (registering the user once), plain text with CORS', async () => {
  const s = await startTestServer({ values: { chat: { expire: { second: 600 } } } });
  try {
    const app = await fetch(`${s.url}/chat/app/token`, { headers: { origin: 'http://example.test' } });
    assert.equal(app.status, 200);
    assert.match(app.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(app.headers.get('access-control-allow-origin'), '*');
    const appToken = await app.text();
    const now = Math.floor(Date.now() / 1000);
    const a = verifyChatApp(appToken, ctx(now));
    assert.ok(a.ok);
    assert.ok(a.expiresAt - now <= 600 && a.expiresAt - now >= 590);

    const pre = await fetch(`${s.url}/chat/user/alice/token`, {
      method: 'OPTIONS',
      headers: { origin: 'http://example.test', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-app' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /GET/);
    assert.equal(pre.headers.get('access-control-allow-headers'), 'Authorization, x-app');
    assert.equal((await fetch(`${s.url}/chat/app/token`, { method: 'OPTIONS' })).status, 204);

    const first = await fetch(`${s.url}/chat/user/alice/token`);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('access-control-allow-origin'), '*');
    const t1 = await first.text();
    const uuid = await uuidOf(s.url, 'alice');
    const u = verifyChatUser(t1, { ...ctx(now), uuid });
    assert.ok(u.ok, JSON.stringify(u));
    assert.ok(!verifyChatUser(t1, { ...ctx(now), uuid: 'someone-else' }).ok);
    // The second request finds the user instead of registering again: same UUID.
    const t2 = await (await fetch(`${s.url}/chat/user/alice/token`)).text();
    assert.ok(verifyChatUser(t2, { ...ctx(now), uuid }).ok);
    assert.equal(await uuidOf(s.url, 'alice'), uuid);

    // Concurrent first requests for a new name race to register; all get a token for the one UUID.
    const race = await Promise.all(Array.from({ length: 6 }, () => fetch(`${s.url}/chat/user/racer/token`)));
    const bodies = await Promise.all(race.map((r) => r.text()));
    assert.deepEqual(race.map((r) => r.status), [200, 200, 200, 200, 200, 200]);
    const racer = await uuidOf(s.url, 'racer');
    for (const b of bodies) assert.ok(verifyChatUser(b, { ...ctx(now), uuid: racer }).ok);

    const illegal = await fetch(`${s.url}/chat/user/${encodeURIComponent('a b')}/token`);
    assert.equal(illegal.status, 400);
    assert.equal(await illegal.text(), 'chatUserName is illegal: username [a b] is not legal');
    const long = await fetch(`${s.url}/chat/user/${'x'.repeat(2000)}/token`);
    assert.equal(long.status, 400);
    assert.equal(await long.text(), 'chatUserName is illegal: USERNAME_TOO_LONG');
    assert.equal((await fetch(`${s.url}/chat/user/a/b/token`)).status, 404);
  } finally {
    await s.close();
  }
});

test('token server: validation order and exact messages of the spec', async () => {
  const cases: [JsonObject, string, number, string][] = [
    [{ appid: '', appkey: '' }, '', 503, 'appid or appcert is not empty'],
    [{ appcert: '', domain: '' }, 'bob', 503, 'appid or appcert is not empty'],
    [{ appkey: '' }, '', 503, 'appkey or domain is not empty'],
    [{ domain: '' }, 'bob', 503, 'appkey or domain is not empty'],
    [{ appkey: 'no-separator' }, '', 503, 'appkey is illegal'],
    [{ appkey: 'org#' }, 'bob', 503, 'appkey is illegal'],
    [{}, '', 400, 'chatUserName is not empty'],
    [{}, '%20%20', 400, 'chatUserName is not empty'],
  ];
  for (const [chat, name, status, message] of cases) {
    const s = await startTestServer({ values: { chat } });
    try {
      const r = await s.app.inject({ method: 'GET', url: `/chat/user/${name}/token` });
      assert.equal(r.statusCode, status, `${JSON.stringify(chat)} ${name}`);
      assert.equal(r.body, message);
      assert.match(String(r.headers['content-type']), /^text\/plain/);
      assert.equal(r.headers['access-control-allow-origin'], '*');
      if ('appid' in chat || 'appcert' in chat) {
        const a = await s.app.inject({ method: 'GET', url: '/chat/app/token' });
        assert.equal(a.statusCode, 503);
        assert.equal(a.body, 'appid or appcert is not empty');
      }
    } finally {
      await s.close();
    }
  }
});

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('token server: an unreachable or refusing chat service gives 502 with a plain-text reason', async () => {
  const port = await closedPort();
  const s = await startTestServer({ values: { chat: { domain: `127.0.0.1:${port}` } } });
  // A chat service that knows another app: it refuses our app token.
  const other = await startTestServer({ env: { REELTIME_APP_ID: '0123456789abcdef0123456789abcdef' } });
  const s2 = await startTestServer({ values: { chat: { domain: other.url } } });
  try {
    const r = await fetch(`${s.url}/chat/user/alice/token`);
    assert.equal(r.status, 502);
    assert.equal(await r.text(), 'chat service is unreachable');
    const r2 = await fetch(`${s2.url}/chat/user/alice/token`);
    assert.equal(r2.status, 502);
    assert.equal(await r2.text(), 'chat service refused the app token: token is illegal.');
  } finally {
    await Promise.all([s.close(), other.close(), s2.close()]);
  }
});

test('token server: the app token cache is refreshed before its token expires (ManualClock)', async () => {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer({ clock, values: { chat: { expire: { second: 100 } } } });
  try {
    const chat = s.modules.find((m) => m.name === 'chat') as ChatModule;
    const get = async (name: string) => {
      const r = await fetch(`${s.url}/chat/user/${name}/token`);
      assert.equal(r.status, 200, await r.clone().text());
      return r.text();
    };
    const t = await get('alice');
    assert.equal(chat.tokens.appTokenBuilds, 1);
    const parsed = parseToken(t);
    assert.ok(parsed.ok);
    assert.equal(parsed.token.issueTs, Math.floor(clock.now() / 1000), 'tokens carry the injected clock time');
    clock.advance(79_000);
    await get('bob');
    assert.equal(chat.tokens.appTokenBuilds, 1, 'still fresh: reused');
    clock.advance(1_000);
    await get('carol');
    assert.equal(chat.tokens.appTokenBuilds, 2, 'refreshed at 80 % of its validity');
    clock.advance(150_000);
    await get('dave');
    assert.equal(chat.tokens.appTokenBuilds, 3);
  } finally {
    await s.close();
  }
});

function runCli(args: string[], env: Record<string, string> = {}) {
  const child = spawnChild(process.execPath, [join(ROOT, 'bin/reeltime.mjs'), ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'reeltime-cli-')),
    env: { ...process.env, REELTIME_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number>((r) => child.on('exit', (code) => r(code ?? -1)));
  return { child, exited, out: () => out, err: () => err };
}

test('reeltime chat-token-server --config file.properties runs alone against a chat REST domain', async () => {
  const s = await startTestServer();
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-props-'));
  const file = join(dir, 'token.properties');
  writeFileSync(
    file,
    [
      '# demo token server',
      'server.port=0',
      `appid=${APP_ID}`,
      `appcert=${CERT}`,
      'expire.second=6000',
      'appkey=reeltime#default',
      `domain=${s.url.replace('http://', '')}`,
    ].join('\n'),
  );
  const cli = runCli(['chat-token-server', '--config', file]);
  try {
    await waitUntil(() => /at (http:\/\/\S+)/.test(cli.out()) || cli.child.exitCode !== null, { timeoutMs: 60_000, what: 'the token server to print its URL' }).catch(
      () => undefined, // the assertion below says what it printed
    );
    const url = /at (http:\/\/\S+)/.exec(cli.out())?.[1];
    assert.ok(url, `no URL printed: ${cli.out()} ${cli.err()}`);
    const r = await fetch(`${url}/chat/user/carol/token`);
    assert.equal(r.status, 200);
    const uuid = await uuidOf(s.url, 'carol');
    assert.ok(verifyChatUser(await r.text(), { ...ctx(Math.floor(Date.now() / 1000)), uuid }).ok);
    assert.equal((await fetch(`${url}/chat/app/token`)).status, 200);
  } finally {
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0);
    await s.close();
  }
  // Refused at start-up, naming the property (in-process: the same CLI entry, without another cold start).
  writeFileSync(file, 'expire.second=90000\n');
  const bad = await mainCapturing(['chat-token-server', '--config', file]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /expire\.second in .*token\.properties.*at most 86400/);
  const usage = await mainCapturing(['chat-token-server', '--bogus']);
  assert.equal(usage.code, 2);
  assert.match(usage.err, /bogus/);
});

async function mainCapturing(argv: string[]): Promise<{ code: number; err: string }> {
  const { main } = await import('../../cli/main.ts');
  const write = process.stderr.write;
  let err = '';
  process.stderr.write = ((chunk: string | Uint8Array) => ((err += String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(argv), err };
  } finally {
    process.stderr.write = write;
  }
}
