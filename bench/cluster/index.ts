/**
 * Cluster benchmark: N concurrent audio-only individual sessions (one synthetic publisher each) on a channel node,
 * dispatched over 2 `reeltime recorder` processes through BullMQ (PostgreSQL + Redis), for SECONDS; then the same
 * load on one embedded process (all roles, SQLite, in-process dispatch) as the baseline of the same run.
 * Reports errors, files present after stop, start latency p50/p99 (the HTTP start call), API p99 (query calls
 * during the run), and CPU per session-second of the recorder processes (with their ffmpeg children, from /proc)
 * against the embedded process's (which also hosts the channel: its figure includes the SFU, so the channel node's
 * CPU is added to the cluster side too for the like-for-like ratio).
 *
 *   node --import tsx bench/cluster/index.ts [N]   (default 50; BENCH_SECONDS=60)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { prepareReplay, startSyntheticPublisher, type SyntheticPublisher } from '../../src/channel/index.ts';
import { startCluster } from '../../src/recording/dispatch/bullmq/cluster-test-kit.ts';
import { APP, BUCKET, recordingClient, rtcToken, storageConfig } from '../../src/recorders/individual/testing/harness.ts';
import { bucketKeys, sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { treeCpuSeconds as treeCpu } from '../../src/process/index.ts';
import { startServerProcess, type ServerProcess } from '../../src/testing/index.ts';

const N = Number(process.argv[2] ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
/**
 * Every publisher sends the same small picture and tone, replayed (encoded once, paced from memory in this
 * process): 50 live encoders fell behind real time on 2 cores and their sessions never got in. BENCH_PUBLISHERS=live
 * brings the encoders back.
 */
const PUBLISHER = { width: 160, height: 120, fps: 5, mode: process.env.BENCH_PUBLISHERS === 'live' ? 'live' : 'replay' } as const;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

interface Result {
  readonly errors: string[];
  readonly filesMissing: number;
  readonly startMs: number[];
  readonly apiMs: number[];
  /** GET /healthz on the API process right after each query: no database, so its time is the process's own delay. */
  readonly healthMs: number[];
  /** CPU s per session-second: recorders only, and everything that serves the sessions. */
  readonly recorderCpu: number;
  readonly allCpu: number;
  /** The machine's 1-minute load average sampled every 10 s of the recording window (it is shared: read CPU with it). */
  readonly load: number[];
  /** /healthz times (ms) of the other processes, by name. */
  readonly probeMs: Record<string, number[]>;
}

/** Publishers, N sessions, SECONDS of recording with query calls, stop, files checked. */
async function run(
  label: string,
  o: { apiUrl: string; channelUrl: string; bucketDir: string; recorders: number[]; all: number[]; probes?: Record<string, string> },
): Promise<Result> {
  const errors: string[] = [];
  const client = recordingClient(o.apiUrl);
  const pubs: SyntheticPublisher[] = [];
  const pubOf = new Map<number, SyntheticPublisher>();
  const cname = (i: number) => `bench-${label}-${i}`;
  for (let i = 0; i < N; i++) {
    const c = cname(i);
    // werift's handshake can stall on a loaded machine: such an attempt is dropped and the next one made.
    for (let attempt = 1; ; attempt++) {
      const p = await startSyntheticPublisher({ baseUrl: o.channelUrl, appId: APP, cname: c, uid: 1000 + i, token: rtcToken(c, 1000 + i), ...PUBLISHER });
      try {
        await p.ready;
        pubs.push(p);
        pubOf.set(i, p);
        break;
      } catch (e) {
        await p.stop().catch(() => undefined);
        if (attempt === 3) {
          errors.push(`publisher ${i}: ${(e as Error).message}`);
          break;
        }
      }
    }
  }
  const startMs: number[] = [];
  const sessions = (
    await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const t0 = performance.now();
        try {
          const s = await client.startRecording(cname(i), String(5000 + i), {
            token: rtcToken(cname(i), 5000 + i, 2),
            storageConfig: storageConfig(),
            recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 0 },
            recordingFileConfig: { avFileType: ['hls'] },
          });
          startMs.push(performance.now() - t0);
          return { i, ...s };
        } catch (e) {
          errors.push(`start ${i}: ${(e as Error).message}`);
          return undefined;
        }
      }),
    )
  ).filter((s) => s !== undefined);
  const cpu0 = { rec: o.recorders.reduce((a, p) => a + treeCpu(p), 0), all: o.all.reduce((a, p) => a + treeCpu(p), 0) };
  const t0 = performance.now();
  const apiMs: number[] = [];
  const healthMs: number[] = [];
  const load = [loadavg()[0]!];
  // Every other process's /healthz too, once a second: which one stalls (its event loop), not only the API.
  const probeMs: Record<string, number[]> = Object.fromEntries(Object.keys(o.probes ?? {}).map((k) => [k, []]));
  const prober = setInterval(() => {
    for (const [name, url] of Object.entries(o.probes ?? {})) {
      const p0 = performance.now();
      void fetch(`${url}/healthz`)
        .then((h) => h.arrayBuffer())
        .catch(() => undefined)
        .then(() => probeMs[name]!.push(performance.now() - p0));
    }
  }, 1000);
  const sampler = setInterval(() => load.push(loadavg()[0]!), 10_000);
  let k = 0;
  while (performance.now() - t0 < SECONDS * 1000) {
    const s = sessions[k++ % sessions.length]!;
    const q0 = performance.now();
    // A refused or dropped connection (a process overwhelmed) is an error of the run, not the end of the bench.
    const r = await client.api('GET', client.path(s.resourceId, s.sid, 'query')).catch((e: Error) => ({ status: `failed (${e.message})` }));
    apiMs.push(performance.now() - q0);
    if (r.status !== 200) errors.push(`query ${s.i}: HTTP ${r.status}`);
    const h0 = performance.now();
    await fetch(`${o.apiUrl}/healthz`).then((h) => h.arrayBuffer()).catch(() => undefined);
    healthMs.push(performance.now() - h0);
    await sleep(200);
  }
  const wall = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  clearInterval(prober);
  load.push(loadavg()[0]!);
  const cpu1 = { rec: o.recorders.reduce((a, p) => a + treeCpu(p), 0), all: o.all.reduce((a, p) => a + treeCpu(p), 0) };
  let filesMissing = 0;
  await Promise.all(
    sessions.map(async (s) => {
      const r = await client
        .api('POST', client.path(s.resourceId, s.sid, 'stop'), { cname: cname(s.i), uid: String(5000 + s.i), clientRequest: {} })
        .catch((e: Error) => ({ status: `failed (${e.message})`, body: {} as Record<string, unknown> }));
      if (r.status !== 200) {
        // Whether its publisher was still connected tells "the channel dropped the publisher" from "the recorder got nothing".
        const pub = pubOf.get(s.i);
        const body = r.body as { code?: unknown; reason?: unknown };
        return void errors.push(`stop ${s.i}: HTTP ${r.status} code ${String(body.code)} "${String(body.reason)}" (sid ${s.sid}; its publisher's peer ${pub?.whip.pc.connectionState ?? 'not started'}, ${pub?.packets.audio ?? 0} audio packets sent)`);
      }
      const list = (r.body.serverResponse as { fileList: { fileName: string }[] }).fileList;
      const keys = new Set(bucketKeys(o.bucketDir));
      if (!list.some((f) => f.fileName.endsWith('.m3u8'))) filesMissing++;
      filesMissing += list.filter((f) => !keys.has(f.fileName)).length;
    }),
  );
  await Promise.all(pubs.map((p) => p.stop().catch(() => undefined)));
  const sessionSec = sessions.length * wall;
  return { errors, filesMissing, startMs, apiMs, healthMs, recorderCpu: (cpu1.rec - cpu0.rec) / sessionSec, allCpu: (cpu1.all - cpu0.all) / sessionSec, load, probeMs };
}

/** The processes' last output, kept where a failed run can be read after the temp dirs are gone. */
function keepLogs(label: string, procs: Record<string, ServerProcess>): void {
  const dir = mkdtempSync(join(tmpdir(), `bench-cluster-${label}-logs-`));
  for (const [name, p] of Object.entries(procs)) writeFileSync(join(dir, `${name}.log`), p.output());
  console.log(`${label}: process output kept in ${dir}`);
}

function print(label: string, r: Result): void {
  console.log(
    `${label}: errors ${r.errors.length}, files missing ${r.filesMissing}, start p50 ${pct(r.startMs, 50).toFixed(0)} ms p99 ${pct(r.startMs, 99).toFixed(0)} ms, ` +
      `query p99 ${pct(r.apiMs, 99).toFixed(0)} ms (${r.apiMs.length} calls), /healthz p50 ${pct(r.healthMs, 50).toFixed(0)} ms p99 ${pct(r.healthMs, 99).toFixed(0)} ms, CPU per session: recorders ${(r.recorderCpu * 1000).toFixed(1)} ms/s, all ${(r.allCpu * 1000).toFixed(1)} ms/s; ` +
      `load average (1 min, every 10 s of the window) ${r.load.map((x) => x.toFixed(1)).join(' ')}`,
  );
  for (const [name, ms] of Object.entries(r.probeMs)) {
    console.log(`  ${name} /healthz p50 ${pct(ms, 50).toFixed(0)} ms p99 ${pct(ms, 99).toFixed(0)} ms max ${Math.max(...ms).toFixed(0)} ms (${ms.length} calls)`);
  }
  for (const e of r.errors.slice(0, 20)) console.log(`  ${e}`);
}

async function main(): Promise<void> {
  console.log(`bench/cluster: ${N} audio-only individual sessions, ${SECONDS} s each; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const roomy = {
    REELTIME_RECORDING_DISPATCH_CAPACITY: '1000',
    REELTIME_RECORDING_MAX_CONCURRENT_TASKS: String(N + 10),
    // BENCH_LOG_LEVEL=info keeps the processes' lifecycle lines for a run with errors (see keepLogs).
    REELTIME_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  };
  if (PUBLISHER.mode === 'replay') await prepareReplay(PUBLISHER);
  const cluster = await startCluster(roomy);
  let clustered: Result;
  // Written once the processes have exited: a process's last lines (the sessions' stop summaries) may still be in
  // its log buffer while it runs.
  let clusterLogs: Record<string, ServerProcess> | undefined;
  try {
    const channel = await cluster.start(['channel']);
    const api = await cluster.start(['api']);
    const recs = await Promise.all([cluster.start(['recorder']), cluster.start(['recorder'])]);
    clustered = await run('cluster', {
      apiUrl: api.url,
      channelUrl: channel.url,
      bucketDir: cluster.bucketDir,
      recorders: recs.map((r) => r.pid),
      all: [...recs.map((r) => r.pid), channel.pid],
      probes: { channel: channel.url, recorder1: recs[0]!.url, recorder2: recs[1]!.url },
    });
    if (clustered.errors.length) clusterLogs = { channel, api, recorder1: recs[0]!, recorder2: recs[1]! };
  } finally {
    await cluster.close();
  }
  if (clusterLogs) keepLogs('cluster', clusterLogs);
  print('cluster (2 recorders)', clustered);
  if (process.env.BENCH_ONLY === 'cluster') return;

  // The embedded process taps the SFU in-process; a recorder process receives over WHEP (WebRTC) from the channel
  // node. The second embedded half takes the WHEP path too, so the ratio can be read both ways.
  const embeddedRun = async (label: string, extra: Record<string, string>): Promise<Result> => {
    const root = mkdtempSync(join(tmpdir(), 'reeltime-bench-embedded-'));
    let server: ServerProcess | undefined;
    let failed = false;
    try {
      const dataDir = join(root, 'data');
      mkdirSync(dataDir, { recursive: true });
      server = await startServerProcess({
        dataDir,
        env: { ...roomy, ...extra, REELTIME_STORAGE_BUCKET_DIR: join(root, 'bucket'), REELTIME_RECORDING_RATE_LIMIT_PER_SECOND: '0' },
      });
      const r = await run(label, { apiUrl: server.url, channelUrl: server.url, bucketDir: join(root, 'bucket', BUCKET), recorders: [server.pid], all: [server.pid] });
      failed = r.errors.length > 0;
      return r;
    } finally {
      await server?.close();
      if (failed && server) keepLogs(label, { server });
      rmSync(root, { recursive: true, force: true });
    }
  };
  const embedded = await embeddedRun('embedded', {});
  print('embedded (1 process, in-process tap)', embedded);
  const embeddedWhep = await embeddedRun('embedded-whep', { REELTIME_RECORDING_MEDIA_PATH: 'whep' });
  print('embedded (1 process, WHEP like the recorder processes)', embeddedWhep);
  console.log(`ratio cluster/embedded-whep CPU per session: recorders+channel ${(clustered.allCpu / embeddedWhep.allCpu).toFixed(2)}x`);
  console.log(
    `ratio cluster/embedded CPU per session: recorders+channel ${(clustered.allCpu / embedded.allCpu).toFixed(2)}x (target ≤ 1.3x); recorders alone ${(clustered.recorderCpu / embedded.allCpu).toFixed(2)}x; load average after ${loadavg().map((x) => x.toFixed(1)).join(' ')}`,
  );
}

await main();
