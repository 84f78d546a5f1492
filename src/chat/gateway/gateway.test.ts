import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildUserToken } from '@reeltime/token';
import { ManualClock } from '../../clock/index.ts';
import { openTestDatabase, settle, startTestServer, TEST_DIALECTS, type TestServer, waitUntil } from '../../testing/index.ts';
import { ChatConnection, ChatTokenSession, fetchUserToken, type ChatError, type TextMessage } from '../sdk/index.ts';
import type { ChatModule } from '../module.ts';
import { CLOSE, LOGIN_REASONS } from './protocol.ts';
import { NodeWebSocket, RawClient } from './test-helpers.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const wsUrl = (s: TestServer) => `${s.url.replace(/^http/, 'ws')}/chat/ws`;

function session(s: TestServer, user: string, extra: Partial<ConstructorParameters<typeof ChatTokenSession>[0]> = {}) {
  const received: TextMessage[] = [];
  const errors: ChatError[] = [];
  const sess = new ChatTokenSession({
    tokenServerUrl: s.url,
    gatewayUrl: wsUrl(s),
    user,
    WebSocket: NodeWebSocket,
    listeners: { onTextMessage: (m) => received.push(m), onError: (e) => errors.push(e) },
    ...extra,
  });
  return { sess, received, errors };
}

test('gateway: two SDK clients exchange messages online; offline messages arrive at next login, in order', async () => {
  const s = await startTestServer();
  const alice = session(s, 'alice');
  const bob = session(s, 'bob');
  try {
    const info = await alice.sess.start();
    assert.equal(info.user, 'alice');
    await bob.sess.start();
    const sent = await alice.sess.sendTextMessage('bob', 'hello bob');
    await waitUntil(() => bob.received.length === 1, { what: 'bob receives' });
    assert.deepEqual(bob.received[0], { id: sent.id, from: 'alice', to: 'bob', text: 'hello bob', timestamp: sent.timestamp });
    await bob.sess.sendTextMessage('ALICE', 'hi alice');
    await waitUntil(() => alice.received.length === 1, { what: 'alice receives' });
    assert.equal(alice.received[0]!.text, 'hi alice');

    bob.sess.stop();
    await waitUntil(() => !s.modules.some((m) => m.name === 'chat' && (m as ChatModule).gateway!.isOnline('bob')), { what: 'bob offline' });
    for (const t of ['one', 'two', 'three']) await alice.sess.sendTextMessage('bob', t);
    const later = session(s, 'bob');
    await later.sess.start();
    await waitUntil(() => later.received.length === 3, { what: 'offline messages' });
    assert.deepEqual(later.received.map((m) => m.text), ['one', 'two', 'three']);
    // Acknowledged: a further login gets nothing again.
    later.sess.stop();
    const again = session(s, 'bob');
    await again.sess.start();
    await alice.sess.sendTextMessage('bob', 'four');
    await waitUntil(() => again.received.length >= 1, { what: 'live message' });
    assert.deepEqual(again.received.map((m) => m.text), ['four']);
    again.sess.stop();

    // Errors of sending are answered, and the connection stays usable.
    await assert.rejects(alice.sess.sendTextMessage('nobody', 'x'), (e: ChatError) => e.code === 'user_not_found');
    await assert.rejects(alice.sess.sendTextMessage('bob', ''), (e: ChatError) => e.code === 'bad_request' && /send\.text/.test(e.message));
    assert.ok(alice.sess.connection.isOpen);
  } finally {
    alice.sess.stop();
    bob.sess.stop();
    await s.close();
  }
});

for (const dialect of TEST_DIALECTS) {
  test(`${dialect}: messages to an offline user survive a gateway restart`, async () => {
    const db = await openTestDatabase(dialect);
    try {
      const first = await startTestServer({ database: db });
      const alice = session(first, 'alice');
      const bobToken = await fetchUserToken(first.url, 'bob'); // registers bob
      assert.ok(bobToken.startsWith('007'));
      await alice.sess.start();
      await alice.sess.sendTextMessage('bob', 'before restart 1');
      await alice.sess.sendTextMessage('bob', 'before restart 2');
      alice.sess.stop();
      await first.close();

      const second = await startTestServer({ database: db });
      try {
        const bob = session(second, 'bob');
        await bob.sess.start();
        await waitUntil(() => bob.received.length === 2, { what: 'messages after restart' });
        assert.deepEqual(bob.received.map((m) => [m.from, m.text]), [
          ['alice', 'before restart 1'],
          ['alice', 'before restart 2'],
        ]);
        bob.sess.stop();
      } finally {
        await second.close();
      }
    } finally {
      await db.close();
    }
  });
}

test('SDK token session reconnects by itself after a gateway restart on the same address', async () => {
  const db = await openTestDatabase('sqlite');
  let server = await startTestServer({ database: db });
  const port = new URL(server.url).port;
  const alice = session(server, 'alice', { retryMs: 100 });
  const bob = session(server, 'bob', { retryMs: 100 });
  try {
    await alice.sess.start();
    await bob.sess.start();
    await server.close();
    server = await startTestServer({ database: db, env: { REELTIME_PORT: port } });
    await waitUntil(() => alice.sess.counts.logins === 2 && bob.sess.counts.logins === 2, { what: 'both logged in again' });
    await waitUntil(() => alice.sess.connection.isOpen && bob.sess.connection.isOpen, { what: 'open' });
    await alice.sess.sendTextMessage('bob', 'after restart');
    await waitUntil(() => bob.received.length === 1, { what: 'delivered' });
    assert.equal(bob.received[0]!.text, 'after restart');
  } finally {
    alice.sess.stop();
    bob.sess.stop();
    await server.close();
    await db.close();
  }
});

test('gateway: will-expire at 80 % of the token lifetime, renewToken, expired then closed (ManualClock)', async () => {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer({ clock, values: { chat: { expire: { second: 100 } } } });
  const conn = new ChatConnection({ url: wsUrl(s), WebSocket: NodeWebSocket });
  const events: string[] = [];
  const closes: number[] = [];
  conn.addEventHandler({
    onTokenWillExpire: () => events.push('will-expire'),
    onTokenExpired: () => events.push('expired'),
    onDisconnected: (e) => closes.push(e.code),
  });
  try {
    const token = await fetchUserToken(s.url, 'alice');
    const info = await conn.open({ user: 'alice', accessToken: token });
    assert.equal(info.expiresAt, (Math.floor(clock.now() / 1000) + 100) * 1000);
    clock.advance(79_000);
    await settle();
    assert.deepEqual(events, []);
    clock.advance(1_000);
    await waitUntil(() => events.length === 1, { what: 'will-expire' });
    assert.deepEqual(events, ['will-expire']);

    // Renew with a token issued now: the timers restart from the new token.
    const renewed = await conn.renewToken(await fetchUserToken(s.url, 'alice'));
    assert.equal(renewed.expiresAt, (Math.floor(clock.now() / 1000) + 100) * 1000);
    clock.advance(25_000); // past the old token's expiry
    await settle();
    assert.deepEqual(events, ['will-expire']);
    assert.ok(conn.isOpen);

    // A token of another user or an expired one is refused; the connection stays.
    await fetchUserToken(s.url, 'bob');
    const bobs = await fetchUserToken(s.url, 'bob');
    await assert.rejects(conn.renewToken(bobs), (e: ChatError) => e.code === 'invalid_token' && e.message.startsWith(LOGIN_REASONS.mismatch));
    const stale = buildUserToken(APP_ID, CERT, info.uuid, 10, { issueTs: Math.floor(clock.now() / 1000) - 20 });
    await assert.rejects(conn.renewToken(stale), (e: ChatError) => e.code === 'token_expired' && e.message === LOGIN_REASONS.expired);
    assert.ok(conn.isOpen);

    clock.advance(55_000); // 80 s into the renewed token
    await waitUntil(() => events.length === 2, { what: 'second will-expire' });
    clock.advance(20_000);
    await waitUntil(() => events.length === 3 && closes.length === 1, { what: 'expired and closed' });
    assert.deepEqual(events, ['will-expire', 'will-expire', 'expired']);
    assert.equal(closes[0], CLOSE.TOKEN_EXPIRED);
    assert.equal(conn.isOpen, false);
    await assert.rejects(conn.sendTextMessage('bob', 'x'), (e: ChatError) => e.code === 'not_connected');
  } finally {
    conn.close();
    await s.close();
  }
});

test('gateway: login is refused with a clear reason for wrong, expired, unknown and malformed tokens', async () => {
  const s = await startTestServer();
  try {
    const aliceToken = await fetchUserToken(s.url, 'alice');
    await fetchUserToken(s.url, 'bob');
    const conn = new ChatConnection({ url: wsUrl(s), WebSocket: NodeWebSocket });
    const attempts: [string, string, string, string][] = [
      ['bob', aliceToken, 'invalid_token', LOGIN_REASONS.mismatch],
      ['ghost', aliceToken, 'user_not_found', LOGIN_REASONS.userNotFound],
      ['alice', '007notatoken', 'invalid_token', LOGIN_REASONS.mismatch],
    ];
    for (const [user, token, code, reason] of attempts) {
      await assert.rejects(conn.open({ user, accessToken: token }), (e: ChatError) => {
        assert.equal(e.code, code);
        assert.ok(e.message.startsWith(reason), e.message);
        return true;
      });
    }
    const raw = await RawClient.connect(wsUrl(s));
    const uuid = (await new ChatConnection({ url: wsUrl(s), WebSocket: NodeWebSocket }).open({ user: 'alice', accessToken: aliceToken })).uuid;
    const expired = buildUserToken(APP_ID, CERT, uuid, 60, { issueTs: Math.floor(Date.now() / 1000) - 120 });
    raw.send({ type: 'login', user: 'alice', token: expired });
    const failed = await raw.next('login-failed');
    assert.deepEqual(failed, { type: 'login-failed', code: 'token_expired', reason: LOGIN_REASONS.expired });
    await waitUntil(() => raw.closed !== undefined, { what: 'closed' });
    assert.equal(raw.closed!.code, CLOSE.LOGIN_FAILED);
  } finally {
    await s.close();
  }
});

test('gateway: a user token valid for more than 24 hours is refused at login, naming the maximum', async () => {
  const s = await startTestServer();
  try {
    const token = await fetchUserToken(s.url, 'carol');
    const { uuid } = await new ChatConnection({ url: wsUrl(s), WebSocket: NodeWebSocket }).open({ user: 'carol', accessToken: token });
    const raw = await RawClient.connect(wsUrl(s));
    raw.send({ type: 'login', user: 'carol', token: buildUserToken(APP_ID, CERT, uuid, 7 * 86400) });
    const failed = (await raw.next('login-failed')) as { code: string; reason: string };
    assert.equal(failed.code, 'invalid_token');
    assert.match(failed.reason, /more than the maximum of 86400 s \(24 hours\)/);
  } finally {
    await s.close();
  }
});

test('gateway: hostile frames are answered with errors naming the field; nothing crashes', async () => {
  const s = await startTestServer();
  try {
    const token = await fetchUserToken(s.url, 'alice');
    // Before login: any bad frame ends the connection with a reason.
    for (const bad of ['not json', '{"type":"send","reqId":"1","to":"x","text":"y"}', '[1,2]', '{"type":"login"}']) {
      const c = await RawClient.connect(wsUrl(s));
      c.send(bad);
      await waitUntil(() => c.closed !== undefined, { what: 'closed' });
      assert.equal(c.closed!.code, CLOSE.PROTOCOL, bad);
      assert.equal(c.frames[0]?.type, 'login-failed');
    }
    const c = await RawClient.connect(wsUrl(s));
    c.send({ type: 'login', user: 'alice', token });
    await c.next('login-ok');
    const bad: [unknown, RegExp][] = [
      ['{{{', /not valid JSON/],
      [{ type: 'send', reqId: 'r1', to: 'bob' }, /send\.text/],
      [{ type: 'send', reqId: 'r2', to: 'x'.repeat(65), text: 'hi' }, /send\.to/],
      [{ type: 'renew', reqId: 'r3' }, /renew\.token/],
      [{ type: 'what' }, /type must be/],
      [{ type: 'login', user: 'alice', token }, /already logged in/],
    ];
    for (const [frame, re] of bad) {
      c.send(frame);
      const e = await c.next('error');
      assert.match(e.reason, re);
    }
    c.ws.send(Buffer.from([1, 2, 3]));
    assert.match((await c.next('error')).reason, /text/);
    for (let i = 0; i < 500; i++) c.send(Math.random().toString(36).repeat(i % 7));
    c.send({ type: 'ping' });
    await c.next('pong');
    // A burst of frames faster than they are handled is throttled (the gateway stops reading), not dropped.
    const flood = await RawClient.connect(wsUrl(s));
    flood.send({ type: 'login', user: 'alice', token });
    await flood.next('login-ok');
    for (let i = 0; i < 1000; i++) flood.send({ type: 'send', reqId: `f${i}`, to: 'alice', text: 'burst' });
    await waitUntil(() => flood.frames.filter((f) => f.type === 'sent').length === 1000, { timeoutMs: 120_000, what: 'burst answered' });
    assert.equal(flood.closed, undefined);
    flood.ws.close();
    // Oversized frames close the connection (1009), not the server.
    c.send('x'.repeat(70 * 1024));
    await waitUntil(() => c.closed !== undefined, { what: 'closed' });
    assert.equal(c.closed!.code, 1009);
    // Upgrades elsewhere are refused; HTTP still works.
    await assert.rejects(RawClient.connect(`${s.url.replace(/^http/, 'ws')}/elsewhere`));
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
  } finally {
    await s.close();
  }
});

test('SDK token session: renews hourly and on will-expire, logs in again after expiry', async () => {
  const clock = new ManualClock(Date.now());
  const s = await startTestServer({ clock, values: { chat: { expire: { second: 7200 } } } });
  let failFetches = false;
  const flakyFetch: typeof fetch = (input, init) => (failFetches ? Promise.reject(new Error('offline')) : fetch(input, init));
  const a = session(s, 'alice', { timers: clock, fetch: flakyFetch });
  const connected: number[] = [];
  a.sess.connection.addEventHandler({ onConnected: () => connected.push(clock.now()) });
  try {
    await a.sess.start();
    assert.deepEqual(a.sess.counts, { renewals: 0, logins: 1 });
    clock.advance(60 * 60 * 1000); // hourly renewal
    await waitUntil(() => a.sess.counts.renewals === 1, { what: 'hourly renewal' });
    clock.advance(60 * 60 * 1000); // the first token's will-expire (at 1.6 h) never comes: it was renewed
    await waitUntil(() => a.sess.counts.renewals === 2, { what: 'second hourly renewal' });

    // The token server is unreachable for a while (app in the background): the hourly and the will-expire
    // renewals fail, the token expires, and the first login attempt fails too.
    failFetches = true;
    clock.advance(2 * 60 * 60 * 1000);
    await waitUntil(() => a.errors.filter((e) => e.code === 'token_server').length >= 3, { what: 'three failures reported' });
    assert.equal(a.sess.counts.logins, 1);
    assert.equal(a.sess.connection.isOpen, false);
    failFetches = false;
    clock.advance(5_000); // the login retry
    await waitUntil(() => a.sess.counts.logins === 2 && a.sess.connection.isOpen, { what: 'logged in again after expiry' });
    assert.equal(connected.length, 2);
    const b = session(s, 'bob');
    await b.sess.start();
    await b.sess.sendTextMessage('alice', 'still reachable');
    await waitUntil(() => a.received.length === 1, { what: 'message after re-login' });
    b.sess.stop();
  } finally {
    a.sess.stop();
    await s.close();
  }
});
