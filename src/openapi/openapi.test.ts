/**
 * GET /openapi.json is a valid OpenAPI 3.1 document and tells the truth: an OpenAPI validator (Swagger Parser, against
 * the official OpenAPI 3.1 schema) accepts it, every schema in it is valid JSON Schema 2020-12 (OpenAPI 3.1's
 * dialect), every $ref resolves, and real answers of the server validate against the response schemas it lists.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestServer, type TestServer } from '../testing/index.ts';
import { recordingClient, startRequest, TEST_APP_ID, type RecordingClient } from '../recording/testing/client.ts';
import { allDoubles } from '../recording/testing/recorder-double.ts';

type Json = Record<string, unknown>;

let server: TestServer;
let client: RecordingClient;
before(async () => {
  server = await startTestServer({ recorders: allDoubles(), values: { recording: { rateLimitPerSecond: 0 } } });
  client = recordingClient(server.app);
});
after(async () => server.close());

async function fetchDocument(): Promise<Json> {
  const r = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  return JSON.parse(r.body) as Json;
}

/** Every value under `v` with its JSON pointer. */
function* walk(v: unknown, pointer = ''): Generator<[string, unknown]> {
  yield [pointer, v];
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) yield* walk(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

/** A copy of a schema whose objects with listed properties accept no other key. */
function closed(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(closed);
  if (!s || typeof s !== 'object') return s;
  const out = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([p, x]) => [p, closed(x)])) : closed(v)]));
  return 'properties' in out && !('additionalProperties' in out) ? { ...out, additionalProperties: false } : out;
}

test('an OpenAPI validator accepts the document; unique operation ids, declared path parameters, known security schemes', async () => {
  const doc = await fetchDocument();
  // Structure (the official 3.1 schema) and the specification's own rules; only references inside the document.
  await SwaggerParser.validate(structuredClone(doc) as never, { resolve: { external: false } });
  // It does refuse a broken one (no title).
  await assert.rejects(SwaggerParser.validate({ ...structuredClone(doc), info: { version: '1' } } as never, { resolve: { external: false } }), /title/);

  const paths = doc.paths as Record<string, Record<string, Json>>;
  const schemes = Object.keys((doc.components as { securitySchemes: Json }).securitySchemes);
  assert.deepEqual(schemes.sort(), ['basicAuth', 'bearerAuth', 'chatUserAssertion', 'metricsToken']);
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    const placeholders = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const id = op.operationId as string;
      assert.ok(!ids.has(id), `operationId ${id} repeated`);
      ids.add(id);
      const params = [...((item.parameters as unknown as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])];
      const inPath = params.filter((p) => p.in === 'path').map((p) => p.name).sort();
      assert.deepEqual(inPath, placeholders, `${method} ${path}: path parameters`);
      for (const requirement of (op.security as Json[]) ?? []) for (const s of Object.keys(requirement)) assert.ok(schemes.includes(s), s);
    }
  }
  for (const op of ['acquire', 'start', 'query', 'update', 'updateLayout', 'stop', 'getNcsIp', 'whip', 'whep', 'chatUserToken', 'getObject', 'listSessions', 'getSession', 'channels', 'trackStats', 'healthz', 'readyz', 'metrics', 'devRtcToken', 'chatUserTokenExpiry', 'openApiDocument']) {
    assert.ok(ids.has(op), `operation ${op} documented`);
  }
});

test('every schema in the document is valid JSON Schema 2020-12 and every $ref resolves', async () => {
  const doc = await fetchDocument();
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ ...(doc.components as Json), $id: 'doc' }, 'doc');
  let refs = 0;
  for (const [pointer, v] of walk(doc)) {
    if (!v || typeof v !== 'object' || !('$ref' in v)) continue;
    refs++;
    const target = String((v as Json).$ref);
    assert.match(target, /^#\/components\/schemas\/[A-Za-z]+$/, pointer);
    const name = target.split('/').pop()!;
    assert.ok((doc.components as { schemas: Json }).schemas[name], `${pointer}: ${target} resolves`);
  }
  assert.ok(refs > 20, `${refs} references`);
  for (const [name, schema] of Object.entries((doc.components as { schemas: Json }).schemas)) {
    assert.ok(ajv.validateSchema(schema as Json), `${name}: ${ajv.errorsText(ajv.errors)}`);
    ajv.compile(schema as Json);
  }
});

test('real answers of the server validate against the response schemas the document lists', async () => {
  const doc = await fetchDocument();
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  // Closed here (not in the document, so clients stay tolerant of new fields): an answer with a key the schema
  // does not list fails.
  for (const [name, s] of Object.entries(schemas)) ajv.addSchema(closed(s) as Json, name);
  assert.equal(ajv.validate('AcquireResponse', { cname: 'c', uid: '1', resourceId: 'r', extra: 1 }), false);
  const check = (name: string, body: unknown) => {
    const ok = ajv.validate(name, body);
    assert.ok(ok, `${name}: ${ajv.errorsText(ajv.errors)}\n${JSON.stringify(body)}`);
  };
  const queryNames = { individual: 'QueryIndividualResponse', mix: 'QueryMixResponse', web: 'QueryWebResponse' } as const;
  for (const mode of ['individual', 'mix', 'web'] as const) {
    const cname = `openapi-${mode}`;
    const acquireBody = { cname, uid: '42', clientRequest: mode === 'web' ? { scene: 1 } : {} };
    check('AcquireRequest', acquireBody);
    const acquired = await client.acquire(acquireBody);
    check('AcquireResponse', acquired.body);
    const startBody = { cname, uid: '42', clientRequest: startRequest(mode) };
    check('StartRequest', startBody);
    const started = await client.start(String(acquired.body.resourceId), mode, startBody);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    check('SessionResponse', started.body);
    const { resourceId, sid } = started.body as { resourceId: string; sid: string };
    const queried = await client.query(resourceId, sid, mode);
    check(queryNames[mode], queried.body);
    check('QueryResponse', queried.body);
    const updateBody = { cname, uid: '42', clientRequest: mode === 'web' ? { webRecordingConfig: { onhold: true } } : { streamSubscribe: { audioUidList: { subscribeAudioUids: ['#allstream#'] } } } };
    check('UpdateRequest', updateBody);
    check('SessionResponse', (await client.update(resourceId, sid, mode, updateBody)).body);
    if (mode === 'mix') {
      const layout = { cname, uid: '42', clientRequest: { mixedVideoLayout: 0 } };
      check('UpdateLayoutRequest', layout);
      check('SessionResponse', (await client.updateLayout(resourceId, sid, mode, layout)).body);
    }
    const stopped = await client.stop(resourceId, sid, mode, { cname, uid: '42', clientRequest: {} });
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    check('StopResponse', stopped.body);
    const gone = await client.query(resourceId, sid, mode);
    assert.equal(gone.status, 404);
    check('ServiceErrorBody', gone.body);
  }
  const sessions = await client.call('GET', `/v1/apps/${TEST_APP_ID}/cloud_recording/sessions?limit=2`);
  check('SessionListResponse', sessions.body);
  const first = (sessions.body as { sessions: { sid: string }[] }).sessions[0]!;
  check('SessionDetailResponse', (await client.call('GET', `/v1/apps/${TEST_APP_ID}/cloud_recording/sessions/${first.sid}`)).body);
  const ncs = await client.call('GET', '/v1/ncs/ip');
  check('NcsIpResponse', ncs.body);
  const unauthorized = await server.app.inject({ method: 'POST', url: `/v1/apps/${TEST_APP_ID}/cloud_recording/acquire` });
  assert.equal(unauthorized.statusCode, 401);
  check('GatewayErrorBody', JSON.parse(unauthorized.body));
});

test('GET /docs is a reference page that loads nothing from beyond this server', async () => {
  const r = await server.app.inject({ method: 'GET', url: '/docs' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.match(r.body, /fetch\('\/openapi\.json'\)/);
  assert.doesNotMatch(r.body, /(src|href)=["']?(https?:)?\/\//i, 'no external script, style or link');
  assert.doesNotMatch(r.body, /@import|url\(/i);
});
