import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer } from '../../testing/index.ts';
import { ERRORS } from '../errors.ts';
import { recordingClient, startRequest, TEST_APP_ID, TEST_AUTH, type Res } from '../testing/client.ts';
import { allDoubles } from '../testing/recorder-double.ts';

/** Small seeded PRNG so a failure can be replayed with FUZZ_SEED. */
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const seed = Number(process.env.FUZZ_SEED ?? 20260101);
let rnd = mulberry32(seed);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const ODD: readonly Json[] = [
  null, true, false, 0, -1, 1, 1.5, 1e308, -1e308, 4294967296, 259201, 2, 17, 33, '', ' ', '0', '1', '4294967295',
  '-1', 'x'.repeat(2000), '#GGGGGG', '#000000', 'http://127.0.0.1/a.jpg', 'rtmp://127.0.0.1/x', 'mp4', 'hls', 'jpg',
  '\u0000', 'a\u0000b', '☃', '__proto__', [], [1], ['mp4'], ['hls', 'mp4'], {}, { a: 1 }, [{}], Array.from({ length: 40 }, (_, i) => String(i + 1)),
];

/** Every path (as key lists) inside a JSON value. */
function paths(v: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}

function mutate(body: Json): Json {
  let b = structuredClone(body);
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const all = paths(b);
    const p = pick(all);
    if (p.length === 0) {
      b = rnd() < 0.5 ? pick(ODD) : b;
      continue;
    }
    let parent: Json = b;
    for (const k of p.slice(0, -1)) parent = (parent as Record<string | number, Json>)[k]!;
    const key = p[p.length - 1]!;
    const container = parent as Record<string | number, Json>;
    const op = rnd();
    if (op < 0.3 && !Array.isArray(parent)) delete container[key];
    else if (op < 0.85) container[key] = structuredClone(pick(ODD));
    else if (!Array.isArray(parent)) container[`${String(key)}x`] = structuredClone(pick(ODD));
    else (parent as Json[]).push(structuredClone(pick(ODD)));
  }
  return b;
}

const FIXED_REASONS = new Set(
  Object.values(ERRORS).flatMap((e) => (e.kind === 'service' && e.reason !== null ? [e.reason] : [])),
);
const NAMES_FIELD = /^(body|Content-Type|Content-Length|mode|cname|uid|clientRequest)(\.[A-Za-z_]+|\[\d+\])*: \S/;

function check(res: Res, what: string): void {
  assert.ok(res.status < 500, `${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  if (res.status === 400 || res.status === 413) {
    if ('message' in res.body) {
      assert.equal(res.body.message, 'appid is invalid', what);
      return;
    }
    const reason = String(res.body.reason);
    assert.ok(FIXED_REASONS.has(reason) || NAMES_FIELD.test(reason), `${what}: reason does not name a field: ${reason}`);
    if (!FIXED_REASONS.has(reason)) assert.ok(res.body.code === 2 || res.body.code === 8, what);
  }
}

// 10,000 on SQLite; a shorter run on PostgreSQL catches driver-specific failures (NUL bytes, bigint parsing). The
// PostgreSQL run takes the next seed, so its cases are new ones rather than the first 1,500 of the SQLite run again.
for (const [dialect, ITERATIONS, runSeed] of [['sqlite', 10_000, seed], ['postgres', 1_500, seed + 1]] as const) {
  test(`[${dialect}] fuzz: ${ITERATIONS} mutated bodies across every endpoint never 5xx, and every 400 names a field (seed ${runSeed})`, async () => {
    rnd = mulberry32(runSeed);
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    const server = await startTestServer({
      dialect,
      clock,
      recorders: allDoubles(),
      values: { recording: { rateLimitPerSecond: 0, maxConcurrentTasks: 1_000_000 } },
    });
    try {
      const api = recordingClient(server.app);
      const modes = ['individual', 'mix', 'web'] as const;
      let uid = 1;
      const live: { rid: string; sid: string; mode: (typeof modes)[number]; cname: string; uid: string }[] = [];
      const fresh = async (mode: (typeof modes)[number]) => {
        const u = String(uid++);
        const rid = (await api.acquire({ cname: 'fz', uid: u, clientRequest: mode === 'web' ? { scene: 1 } : {} })).body.resourceId as string;
        return { rid, mode, cname: 'fz', uid: u };
      };
      const unstarted = new Map<(typeof modes)[number], Awaited<ReturnType<typeof fresh>>>();
      const counts: Record<string, number> = {};
      for (let i = 0; i < ITERATIONS; i++) {
        if (live.length < 3) {
          for (const mode of modes) {
            const f = await fresh(mode);
            const r = await api.start(f.rid, mode, { cname: f.cname, uid: f.uid, clientRequest: startRequest(mode) });
            live.push({ ...f, sid: r.body.sid as string });
          }
        }
        const s = pick(live);
        const id = { cname: s.cname, uid: s.uid };
        const kind = pick(['acquire', 'start', 'start', 'start', 'update', 'updateLayout', 'stop', 'query', 'raw'] as const);
        counts[kind] = (counts[kind] ?? 0) + 1;
        let res: Res;
        const what = `#${i} ${kind}`;
        switch (kind) {
          case 'acquire':
            res = await api.acquire(mutate({ cname: 'fz', uid: String(uid++), clientRequest: { scene: 0, resourceExpiredHour: 24, region: 'NA', startParameter: startRequest('mix') as Json } }));
            break;
          case 'start': {
            const mode = pick(modes);
            // A refused start leaves its resource issued: the next start of the mode uses it again rather than
            // acquiring one more (every issued resource is a row the concurrency count reads on each acquire).
            const f = unstarted.get(mode) ?? (await fresh(mode));
            unstarted.delete(mode);
            const body = mutate({ cname: f.cname, uid: f.uid, clientRequest: startRequest(mode) as Json });
            res = await api.start(f.rid, rnd() < 0.05 ? pick(['x', 'MIX', '']) || 'x' : mode, body);
            if (res.status === 200) live.push({ ...f, sid: res.body.sid as string });
            else if (res.status === 400 || res.status === 413) unstarted.set(mode, f);
            break;
          }
          case 'update':
            res = await api.update(s.rid, s.sid, s.mode, mutate({ ...id, clientRequest: { storageConfig: startRequest(s.mode).storageConfig as Json, ...(s.mode === 'web' ? { webRecordingConfig: { onhold: true } } : { streamSubscribe: { audioUidList: { subscribeAudioUids: ['1'] } } }) } }));
            break;
          case 'updateLayout':
            res = await api.updateLayout(s.rid, s.sid, s.mode, mutate({ ...id, clientRequest: { mixedVideoLayout: 3, backgroundColor: '#112233', layoutConfig: [{ uid: '1', x_axis: 0.1, y_axis: 0.1, width: 0.5, height: 0.5, alpha: 1, render_mode: 0 }], backgroundConfig: [{ uid: '1', image_url: 'http://127.0.0.1/a.jpg' }] } }));
            break;
          case 'stop':
            res = await api.stop(s.rid, s.sid, s.mode, mutate({ ...id, clientRequest: { async_stop: rnd() < 0.5 } }));
            if (res.status === 200 || res.status === 206 || res.status === 404) live.splice(live.indexOf(s), 1);
            break;
          case 'query':
            res = await api.query(rnd() < 0.8 ? s.rid : pick(['q'.repeat(Math.floor(rnd() * 80) + 1), 'a\u0000b'.repeat(10), '☃'.repeat(20)]), rnd() < 0.8 ? s.sid : pick(['', 'x', s.rid]) || 'y', rnd() < 0.9 ? s.mode : 'web');
            break;
          case 'raw': {
            const url = pick([
              `/v1/apps/${TEST_APP_ID}/cloud_recording/acquire`,
              `/v1/apps/${TEST_APP_ID}/cloud_recording/resourceid/${encodeURIComponent(s.rid)}/mode/${s.mode}/start`,
              `/v1/apps/${TEST_APP_ID}/cloud_recording/resourceid/${encodeURIComponent(s.rid)}/sid/${s.sid}/mode/${s.mode}/stop`,
            ]);
            const payload = pick(['', '{', '[]', 'null', '"x"', '{"cname":1}', '\u0000\u0001', '{"a":'.repeat(50), JSON.stringify({ ...id, clientRequest: 'x' })]);
            const r = await server.app.inject({
              method: 'POST',
              url,
              headers: { authorization: TEST_AUTH, ...(rnd() < 0.7 ? { 'content-type': pick(['application/json', 'text/plain', 'application/xml', 'application/json; charset=utf-8']) } : {}) },
              payload,
            });
            let body: Record<string, unknown> = {};
            try {
              body = JSON.parse(r.body) as Record<string, unknown>;
            } catch {
              assert.fail(`${what}: non-JSON response ${r.statusCode} ${r.body}`);
            }
            res = { status: r.statusCode, body };
            break;
          }
        }
        check(res, what);
        // Let resources age now and then, so expiry paths are fuzzed too.
        if (i % 997 === 0) clock.advance(61_000);
      }
      assert.ok(Object.values(counts).reduce((a, b) => a + b, 0) >= ITERATIONS);
      const health = await server.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
    } finally {
      await server.close();
    }
  });
}
