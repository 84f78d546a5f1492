import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startReceiver } from '../../notify/test-helpers.ts';
import { startTestServer, TEST_DIALECTS, type TestServer, waitUntil } from '../../testing/index.ts';
import { allDoubles, startRequest, TEST_APP_ID, TEST_AUTH } from '../testing/index.ts';

type Body = Record<string, unknown>;
type Mode = 'individual' | 'mix' | 'web';

/** The sessions API and the hosted paths through the real HTTP server (fetch on loopback). */
function http(server: TestServer) {
  const base = `${server.url}/v1/apps/${TEST_APP_ID}/cloud_recording`;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, auth = TEST_AUTH) => {
    const r = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: (await r.json()) as Body };
  };
  return {
    call,
    async begin(mode: Mode, cname: string, uid = '4242') {
      const rid = (await call('POST', '/acquire', { cname, uid, clientRequest: mode === 'web' ? { scene: 1 } : {} })).body
        .resourceId as string;
      const r = await call('POST', `/resourceid/${encodeURIComponent(rid)}/mode/${mode}/start`, {
        cname,
        uid,
        clientRequest: { ...startRequest(mode), token: 'rtc-token-secret-value' },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const sid = r.body.sid as string;
      const stop = () => call('POST', `/resourceid/${encodeURIComponent(rid)}/sid/${sid}/mode/${mode}/stop`, { cname, uid, clientRequest: {} });
      return { rid, sid, stop };
    },
  };
}

for (const dialect of TEST_DIALECTS) {
  test(`sessions API (${dialect}): list newest first with filters and cursor; detail with redacted request, history, files, events`, async () => {
    const hook = await startReceiver(() => 200);
    const server = await startTestServer({
      dialect,
      recorders: allDoubles(),
      values: {
        recording: { rateLimitPerSecond: 0 },
        notify: { webhooks: { [TEST_APP_ID]: { url: hook.url, secret: 'whsec-0f1e2d3c4b5a69788796a5b4c3d2e1f0' } } },
      },
    });
    try {
      const api = http(server);
      const a = await api.begin('mix', 'room-a');
      const b = await api.begin('individual', 'room-b');
      const c = await api.begin('mix', 'room-a', '77');
      await waitUntil(async () => ((await api.call('GET', `/sessions/${a.sid}`)).body.fileCount as number) > 0, { what: 'files reported' });
      assert.equal((await a.stop()).status, 200);

      const all = await api.call('GET', '/sessions');
      assert.equal(all.status, 200);
      const sids = (all.body.sessions as Body[]).map((s) => s.sid);
      assert.deepEqual(new Set(sids), new Set([a.sid, b.sid, c.sid]));
      assert.equal('nextCursor' in all.body, false);

      // Pages of one, newest first, follow the cursor to the end without repeats.
      const paged: unknown[] = [];
      let cursor: string | undefined;
      do {
        const q: string = `/sessions?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await api.call('GET', q);
        paged.push(...(page.body.sessions as Body[]).map((s) => s.sid));
        cursor = page.body.nextCursor as string | undefined;
      } while (cursor);
      assert.deepEqual(paged, sids);

      const byCname = await api.call('GET', '/sessions?cname=room-a&mode=mix');
      assert.deepEqual(new Set((byCname.body.sessions as Body[]).map((s) => s.sid)), new Set([a.sid, c.sid]));
      const ended = await api.call('GET', '/sessions?status=ended');
      assert.deepEqual((ended.body.sessions as Body[]).map((s) => s.sid), [a.sid]);
      assert.equal(Array.isArray((await api.call('GET', '/sessions?mode=individual')).body.sessions), true);
      assert.deepEqual(((await api.call('GET', '/sessions?from=2999-01-01')).body.sessions as Body[]).length, 0);

      const bad = await api.call('GET', '/sessions?status=done');
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, { code: 2, reason: 'status: must be one of live, stopping, ended' });
      assert.equal((await api.call('GET', '/sessions?cursor=nonsense')).status, 400);
      assert.equal((await api.call('GET', '/sessions', undefined, 'Basic bm86bm8=')).status, 401);

      // The ended session: request without secrets, its states in order, files with local URLs, events delivered.
      await waitUntil(async () => {
        const d = (await api.call('GET', `/sessions/${a.sid}`)).body;
        return (d.webhooks as Body[]).length > 0 && (d.webhooks as Body[]).every((e) => e.delivery === 'delivered');
      }, { what: 'events delivered' });
      const d = (await api.call('GET', `/sessions/${a.sid}`)).body;
      const text = JSON.stringify(d);
      for (const secret of ['AKIATESTKEY', 'super-secret-key-value', 'rtc-token-secret-value']) assert.ok(!text.includes(secret), secret);
      const request = d.clientRequest as { storageConfig: Body; token: string };
      assert.equal(request.storageConfig.secretKey, '[redacted]');
      assert.equal(request.token, '[redacted]');
      assert.equal(request.storageConfig.bucket, 'test-bucket');
      assert.equal(d.state, 'ended');
      assert.equal(d.mode, 'mix');
      assert.equal(d.cname, 'room-a');
      const states = (d.statusHistory as Body[]).map((h) => `${h.state}:${h.status}`);
      assert.equal(states[0], 'live:0');
      assert.ok(states.includes('live:5'), states.join());
      assert.ok(states.includes('stopping:6'), states.join());
      assert.equal(states[states.length - 1], 'ended:8');
      const files = d.files as Body[];
      assert.ok(files.length > 0);
      assert.equal(files[0]!.url, `${server.url}/bucket/test-bucket/${files[0]!.fileName as string}`);
      const webhooks = d.webhooks as Body[];
      assert.deepEqual(webhooks.map((e) => e.sequence), webhooks.map((_, i) => i));
      assert.ok(webhooks.some((e) => e.msgName === 'session_exit'), JSON.stringify(webhooks.map((e) => e.msgName)));
      assert.equal((webhooks[0]!.attempts as Body[])[0]!.httpStatus, 200);
      assert.ok((d.events as Body[]).length > 0, 'control-plane events');
      assert.equal(d.endReason, 'stopped');
      assert.equal(typeof d.endedAt, 'number');

      const live = (await api.call('GET', `/sessions/${b.sid}`)).body;
      assert.equal(live.state, 'live');
      assert.equal('endedAt' in live, false);
      assert.ok(!JSON.stringify(live).includes(':null'), 'optional fields are left out, never null');

      const missing = await api.call('GET', '/sessions/0123456789abcdef0123456789abcdef');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { sid: '0123456789abcdef0123456789abcdef', code: 404, reason: 'failed to find worker' });
      await b.stop();
      await c.stop();
    } finally {
      await server.close();
      await hook.close();
    }
  });
}
