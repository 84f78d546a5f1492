import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startPrivateRedis, freePort } from '../redis/testing.ts';
import type { Role } from '../server/index.ts';
import { openTestDatabase, startTestServer, type TestServer } from '../testing/index.ts';
import { checkReadiness } from './readiness.ts';

const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function get(s: TestServer, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${s.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('readiness: each check reported by name; a throwing or silent check fails without its error text', async () => {
  const r = await checkReadiness(
    [
      { name: 'fine', probe: async () => undefined },
      { name: 'said-why', probe: async () => 'disk full' },
      { name: 'threw', probe: async () => Promise.reject(new Error('password=hunter2')) },
      { name: 'silent', probe: () => new Promise<undefined>(() => undefined) },
    ],
    50,
  );
  assert.equal(r.ready, false);
  assert.deepEqual(r.failing, ['said-why', 'threw', 'silent']);
  assert.deepEqual(r.checks, { fine: 'ok', 'said-why': 'disk full', threw: 'failed', silent: 'no answer within 50 ms' });
});

for (const role of ['api', 'recorder', 'channel', 'chat'] as const satisfies readonly Role[]) {
  test(`${role} role: /healthz is live and /readyz ready with the checks of the role`, async () => {
    const s = await startTestServer({ roles: [role] });
    servers.push(s);
    assert.deepEqual(await get(s, '/healthz'), { status: 200, body: { status: 'ok', roles: [role] } });
    const ready = await get(s, '/readyz');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    const checks = role === 'recorder' ? { database: 'ok', storage: 'ok' } : { database: 'ok' };
    assert.deepEqual(ready.body, { status: 'ready', roles: [role], checks });
  });
}

test('/readyz answers 503 naming redis once Redis is killed, and stays live', async () => {
  const redis = await startPrivateRedis();
  const s = await startTestServer({ roles: ['api'], env: { REDIS_URL: redis.url } });
  servers.push(s);
  try {
    assert.deepEqual((await get(s, '/readyz')).body.checks, { database: 'ok', redis: 'ok' });
    await redis.kill();
    const down = await get(s, '/readyz');
    assert.equal(down.status, 503);
    const { checks, ...rest } = down.body;
    assert.deepEqual(rest, { status: 'unavailable', roles: ['api'], failing: ['redis'] });
    assert.equal((checks as Record<string, string>).database, 'ok');
    assert.match((checks as Record<string, string>).redis!, /^(no PONG|no answer within \d+ ms)$/);
    assert.equal((await get(s, '/healthz')).status, 200);
  } finally {
    await redis.kill();
  }
});

test('/readyz answers 503 naming the database once it is gone', async () => {
  const db = await openTestDatabase('sqlite');
  const s = await startTestServer({ roles: ['chat'], database: db });
  servers.push(s);
  await db.close();
  const down = await get(s, '/readyz');
  assert.equal(down.status, 503);
  assert.deepEqual(down.body.failing, ['database']);
});

test('recorder role: /readyz names storage when a configured storage endpoint is unreachable', async () => {
  const deadPort = await freePort();
  const s = await startTestServer({ roles: ['recorder'], values: { storage: { endpoints: { '1': `http://127.0.0.1:${deadPort}` } } } });
  servers.push(s);
  const down = await get(s, '/readyz');
  assert.equal(down.status, 503);
  assert.deepEqual(down.body.failing, ['storage']);
  assert.equal((down.body.checks as Record<string, string>).storage, 'storage endpoint of vendor 1 unreachable');
});
