/**
 * Recording API benchmark (loopback only, bounded time):
 *  1. acquire + start + query + stop cycles per second with the recorder test double;
 *  2. `query` throughput against a bare Fastify route returning the same JSON, in the same run.
 * Usage: node --import tsx bench/api/index.ts [--seconds 5] [--concurrency 16]
 */
import perfHooks from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { allDoubles, recordingClient, startRequest, TEST_APP_ID, TEST_AUTH } from '../../src/recording/testing/index.ts';
import { startTestServer } from '../../src/testing/index.ts';
import { runLoad } from './load.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '16' } },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const server = await startTestServer({
  recorders: allDoubles(),
  values: { recording: { rateLimitPerSecond: 0, maxConcurrentTasks: 1_000_000 } },
});
try {
  // 1. Full cycles over real HTTP (fetch on loopback), `concurrency` loops at once.
  const base = `${server.url}/v1/apps/${TEST_APP_ID}/cloud_recording`;
  const headers = { authorization: TEST_AUTH, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Record<string, string> };
  };
  let cycles = 0;
  let failures = 0;
  let uid = 1;
  const cycleEnd = Date.now() + seconds * 1000;
  const t0 = Date.now();
  const cycleElu0 = perfHooks.performance.eventLoopUtilization();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, 8) }, async () => {
      while (Date.now() < cycleEnd) {
        const id = { cname: 'bench', uid: String(uid++) };
        const a = await post('/acquire', id);
        const rid = encodeURIComponent(a.body.resourceId!);
        const s = await post(`/resourceid/${rid}/mode/mix/start`, { ...id, clientRequest: startRequest('mix') });
        const q = await fetch(`${base}/resourceid/${rid}/sid/${s.body.sid}/mode/mix/query`, { headers });
        await q.arrayBuffer();
        const st = await post(`/resourceid/${rid}/sid/${s.body.sid}/mode/mix/stop`, { ...id, clientRequest: {} });
        if (a.status !== 200 || s.status !== 200 || q.status !== 200 || st.status !== 200) failures++;
        else cycles++;
      }
    }),
  );
  const cycleSecs = (Date.now() - t0) / 1000;
  // Client and server share this thread here, so this is an upper bound of the server's cost per cycle.
  const cycleBusyMs = (perfHooks.performance.eventLoopUtilization(cycleElu0).active / Math.max(1, cycles));

  // 2. query vs a bare Fastify route with the same body.
  const api = recordingClient(server.app);
  const a = await api.acquire({ cname: 'q', uid: '1' });
  const rid = a.body.resourceId as string;
  const s = await api.start(rid, 'mix', { cname: 'q', uid: '1', clientRequest: startRequest('mix') });
  const sid = s.body.sid as string;
  const queryUrl = `${base}/resourceid/${encodeURIComponent(rid)}/sid/${sid}/mode/mix/query`;
  const sample = await (await fetch(queryUrl, { headers })).json();

  const bare = Fastify();
  bare.get('/query', async () => sample);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareAddr = bare.server.address() as { port: number };
  const bareUrl = `http://127.0.0.1:${bareAddr.port}/query`;

  // The machine is shared: alternate short rounds and compare medians. Besides requests/s (wall clock, noisy under
  // load), the main thread's busy time per request (event-loop utilisation) isolates the server's own cost.
  const round = async (url: string) => {
    const elu0 = perfHooks.performance.eventLoopUtilization();
    const r = await runLoad({ url, headers: { authorization: TEST_AUTH }, concurrency, durationMs: roundMs });
    const elu = perfHooks.performance.eventLoopUtilization(elu0);
    return { ...r, serverUsPerRequest: (elu.active * 1000) / Math.max(1, r.requests) };
  };
  const roundMs = 500;
  const rounds = Math.max(6, Math.round(seconds * 2));
  await round(bareUrl); // warm-up of the JIT and sockets, not counted
  await round(queryUrl);
  const bareRuns: Awaited<ReturnType<typeof round>>[] = [];
  const queryRuns: Awaited<ReturnType<typeof round>>[] = [];
  for (let i = 0; i < rounds; i++) {
    bareRuns.push(await round(bareUrl));
    queryRuns.push(await round(queryUrl));
  }
  await bare.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary = (runs: typeof bareRuns) => ({
    requests: runs.reduce((a, r) => a + r.requests, 0),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    medianPerSecond: Number(median(runs.map((r) => r.perSecond)).toFixed(0)),
    medianServerUsPerRequest: Number(median(runs.map((r) => r.serverUsPerRequest)).toFixed(1)),
    medianP50Ms: Number(median(runs.map((r) => r.p50Ms)).toFixed(2)),
    medianP99Ms: Number(median(runs.map((r) => r.p99Ms)).toFixed(2)),
  });
  const queryRes = summary(queryRuns);
  const bareRes = summary(bareRuns);

  const report = {
    seconds,
    concurrency,
    cycles: {
      completed: cycles,
      failures,
      perSecond: Number((cycles / cycleSecs).toFixed(1)),
      busyMsPerCycle: Number(cycleBusyMs.toFixed(2)),
    },
    query: queryRes,
    bareFastify: bareRes,
    /** Throughput of query relative to the bare route (target at least 0.7). */
    queryVsBare: Number((queryRes.medianPerSecond / bareRes.medianPerSecond).toFixed(3)),
    /** Same comparison by server CPU per request: bare cost / query cost. */
    queryVsBareByServerCost: Number((bareRes.medianServerUsPerRequest / queryRes.medianServerUsPerRequest).toFixed(3)),
    loadAverage: (await import('node:os')).loadavg().map((x) => Number(x.toFixed(2))),
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await server.close();
}
