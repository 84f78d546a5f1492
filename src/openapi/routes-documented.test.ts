/**
 * Every route a whole server registers is in /openapi.json, or its module lists it as undocumented with a reason
 * (`OpenApiContribution.undocumented`: static pages and assets, CORS preflights); and every documented operation
 * is a route the server has. Fastify's patterns (`:name`, a trailing `*`) are compared with OpenAPI paths.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { UndocumentedRoute } from '../http/index.ts';
import { allDoubles } from '../recording/testing/recorder-double.ts';
import { startTestServer, type TestServer } from '../testing/index.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let server: TestServer;
before(async () => {
  server = await startTestServer({ recorders: allDoubles() });
});
after(async () => server.close());

interface Operation {
  readonly method: string;
  readonly path: string;
}

async function documentedOperations(): Promise<Operation[]> {
  const r = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(r.statusCode, 200);
  const paths = (JSON.parse(r.body) as { paths: Record<string, Record<string, unknown>> }).paths;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .map((k) => ({ method: k.toUpperCase(), path })),
  );
}

/** Whether a Fastify route pattern serves an OpenAPI path: `:name` is `{name}`; a trailing `*` covers what follows. */
function routeServes(url: string, path: string): boolean {
  const pattern = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  if (!pattern.endsWith('*')) return pattern === path;
  const prefix = pattern.slice(0, -1);
  return path.startsWith(prefix) && path.length > prefix.length;
}

const listedAs = (u: UndocumentedRoute, method: string, url: string) =>
  u.method === method && (u.url === url || (u.url.endsWith('*') && url.startsWith(u.url.slice(0, -1))));

test('every registered route is documented in /openapi.json or listed as undocumented with a reason', async () => {
  const operations = await documentedOperations();
  const undocumented = server.modules.flatMap((m) => m.openapi?.undocumented ?? []);
  assert.ok(server.routes.length > 40, `${server.routes.length} routes seen`);
  const documented = (method: string, url: string) => operations.some((o) => o.method === method && routeServes(url, o.path));
  const missing = server.routes.filter(({ method, url }) => {
    // Fastify answers HEAD for every GET route (exposeHeadRoute): documented, or left out, with its GET.
    const asGet = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
    return !asGet.some((m) => documented(m, url) || undocumented.some((u) => listedAs(u, m, url)));
  });
  assert.deepEqual(
    missing.map((r) => `${r.method} ${r.url}`),
    [],
    'routes neither in /openapi.json nor in a module\'s openapi.undocumented list',
  );
  for (const u of undocumented) {
    assert.ok(u.reason.trim().length > 10, `${u.method} ${u.url}: a reason`);
    assert.ok(server.routes.some((r) => listedAs(u, r.method, r.url)), `${u.method} ${u.url} is listed as undocumented but no route has it`);
  }
});

test('every operation in /openapi.json is a route of the server', async () => {
  const operations = await documentedOperations();
  assert.ok(operations.length >= 30, `${operations.length} operations`);
  const stale = operations.filter((o) => !server.routes.some((r) => r.method === o.method && routeServes(r.url, o.path)));
  assert.deepEqual(stale.map((o) => `${o.method} ${o.path}`), [], 'documented operations no route serves');
});

test('the development token route is documented (it was missing)', async () => {
  const operations = await documentedOperations();
  assert.ok(operations.some((o) => o.method === 'POST' && o.path === '/rtc/v1/dev/token'));
  const r = await server.app.inject({ method: 'POST', url: '/rtc/v1/dev/token', payload: { cname: 'c', uid: 7 } });
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(Object.keys(JSON.parse(r.body) as object).sort(), ['appId', 'cname', 'expiresIn', 'token', 'uid']);
});

test('route patterns and OpenAPI paths: parameters and wildcards', () => {
  assert.equal(routeServes('/rtc/v1/sessions/:id', '/rtc/v1/sessions/{id}'), true);
  assert.equal(routeServes('/rtc/v1/sessions/:id', '/rtc/v1/sessions/{sid}'), false);
  assert.equal(routeServes('/bucket/*', '/bucket/{bucket}/{key}'), true);
  assert.equal(routeServes('/bucket/*', '/bucket/'), false);
  assert.equal(routeServes('/chat/user/*', '/chat/app/token'), false);
});
