// Storage benchmark: uploads of 2-second-HLS-sized segments (250 KB - 1 MB) to s3rver on loopback.
// Run: node --import tsx bench/storage/index.ts [--burst N] [--streams S] [--seconds T] [--concurrency C]
//  1. raw uploader throughput (S3 API straight from disk) at concurrency 1 and C;
//  2. the same burst through the backup spool (copy into the spool, manifest in SQLite, upload, delete);
//  3. paced: S streams each closing a segment every 2 s for T seconds, latency from enqueue ("segment
//     closed") to the object answering HEAD, p50/p95.
// s3rver runs in its own process so it does not share this event loop. Bounded: about T + 30 s.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../../src/clock/index.ts';
import { openDatabase } from '../../src/db/index.ts';
import { createLogger } from '../../src/log/index.ts';
import type { StorageSettings } from '../../src/storage/config.ts';
import { sealingKey } from '../../src/storage/seal.ts';
import { UploadSpool } from '../../src/storage/spool/engine.ts';
import { SpoolStore } from '../../src/storage/spool/store.ts';
import type { StorageConfig } from '../../src/storage/storage-config.ts';
import { createUploader } from '../../src/storage/uploaders/factory.ts';

const { values } = parseArgs({
  options: {
    burst: { type: 'string', default: '60' },
    streams: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '4' },
  },
});
const BURST = Number(values.burst);
const STREAMS = Number(values.streams);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);

const work = mkdtempSync(join(tmpdir(), 'reeltime-bench-storage-'));
const port = await new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = (s.address() as { port: number }).port;
    s.close(() => resolve(p));
  });
});
const server = spawn(
  join(process.cwd(), 'node_modules/.bin/s3rver'),
  ['-d', join(work, 's3'), '-a', '127.0.0.1', '-p', String(port), '-s', '--configure-bucket', 'bench'],
  { stdio: 'ignore' },
);
const endpoint = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try {
    await fetch(endpoint);
    break;
  } catch {
    if (i > 300) throw new Error('s3rver did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const config = (concurrency: number): StorageSettings => ({
  routeAllToLocal: false,
  endpoints: { 1: endpoint },
  bucketDir: join(work, 'bucket'),
  serveBucket: false,
  bucketPublic: true,
  signedUrlTtlSeconds: 3600,
  spoolDir: join(work, 'spool'),
  spoolMaxBytes: 10 * 1024 ** 3,
  concurrency,
  retryBaseMs: 1000,
  retryMaxMs: 30_000,
  partSizeBytes: 8 * 1024 * 1024,
  leaseMs: 60_000,
});
const storage: StorageConfig = { vendor: 1, region: 0, bucket: 'bench', accessKey: 'S3RVER', secretKey: 'S3RVER' };

// Segment files of 250 KB - 1 MB (2 s of 1-4 Mbit/s video), written once and reused.
const segments = Array.from({ length: 24 }, (_, i) => {
  const p = join(work, `seg${i}.ts`);
  const size = 250_000 + Math.floor(Math.random() * 750_000);
  writeFileSync(p, randomBytes(size));
  return { path: p, size };
});
const pick = (i: number) => segments[i % segments.length]!;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mb = (bytes: number) => bytes / 1e6;
const rows: string[] = [];

async function rawBurst(concurrency: number): Promise<void> {
  const u = createUploader(storage, config(concurrency), Date.now);
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < BURST; i = next++) {
        const s = pick(i);
        await u.put({ key: `raw${concurrency}/s${i}.ts`, body: { file: s.path }, contentType: 'video/mp2t' });
        bytes += s.size;
      }
    }),
  );
  const sec = (performance.now() - t0) / 1000;
  u.close();
  rows.push(`raw S3 put, concurrency ${concurrency}: ${BURST} segments, ${mb(bytes).toFixed(1)} MB in ${sec.toFixed(2)} s = ${(mb(bytes) / sec).toFixed(1)} MB/s, ${(BURST / sec).toFixed(1)} segments/s`);
}

const db = await openDatabase({ sqlitePath: join(work, 'bench.sqlite') });
const spool = new UploadSpool({
  store: new SpoolStore(db.db),
  config: config(CONCURRENCY),
  clock: systemClock,
  log: createLogger('silent'),
  sealKey: sealingKey('5CFd2fd1755d40ecb72977518be15d3b'),
});
await spool.start();
const uploadedAt = new Map<string, number>();
const waiters = new Map<string, () => void>();
spool.onEvent((e) => {
  if (e.kind === 'file-uploaded') {
    uploadedAt.set(e.fileName, performance.now());
    waiters.get(e.fileName)?.();
  }
});
const headCheck = createUploader(storage, config(1), Date.now);

async function spoolBurst(): Promise<void> {
  const session = await spool.openSession({ sid: 'burst', appId: 'a', cname: 'c', uid: '1', storage: { ...storage, fileNamePrefix: ['burst'] } });
  let bytes = 0;
  const t0 = performance.now();
  const done: Promise<void>[] = [];
  for (let i = 0; i < BURST; i++) {
    const s = pick(i);
    const key = session.objectKey(`s${i}.ts`);
    done.push(new Promise<void>((r) => waiters.set(key, r)));
    const res = await session.enqueue(s.path, key);
    if (!res.ok) throw new Error(res.message);
    bytes += s.size;
  }
  await Promise.all(done);
  const sec = (performance.now() - t0) / 1000;
  await session.finish();
  rows.push(`spool burst, concurrency ${CONCURRENCY}: ${BURST} segments, ${mb(bytes).toFixed(1)} MB in ${sec.toFixed(2)} s = ${(mb(bytes) / sec).toFixed(1)} MB/s (copy + manifest + upload + delete)`);
}

async function paced(): Promise<void> {
  const sessions = await Promise.all(
    Array.from({ length: STREAMS }, (_, k) =>
      spool.openSession({ sid: `live${k}`, appId: 'a', cname: 'c', uid: String(k), storage: { ...storage, fileNamePrefix: [`live${k}`] } }),
    ),
  );
  const toEvent: number[] = [];
  const toHead: number[] = [];
  const pending: Promise<void>[] = [];
  const perStream = Math.max(1, Math.floor(SECONDS / 2));
  const start = performance.now();
  for (let n = 0; n < perStream; n++) {
    // Streams close their segments staggered over the 2 s, as independent publishers would.
    for (const [k, session] of sessions.entries()) {
      const due = start + n * 2000 + (k * 2000) / STREAMS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const key = session.objectKey(`s${n}.ts`);
      const arrived = new Promise<void>((r) => waiters.set(key, r));
      const t0 = performance.now();
      const res = await session.enqueue(pick(n * STREAMS + k).path, key);
      if (!res.ok) throw new Error(res.message);
      pending.push(
        arrived.then(async () => {
          toEvent.push(uploadedAt.get(key)! - t0);
          if (!(await headCheck.head(key))) throw new Error(`HEAD ${key} failed after upload`);
          toHead.push(performance.now() - t0);
        }),
      );
    }
  }
  await Promise.all(pending);
  rows.push(
    `paced ${STREAMS} streams x ${perStream} segments (one per stream every 2 s): enqueue -> uploaded event p50 ${pct(toEvent, 50).toFixed(1)} ms, p95 ${pct(toEvent, 95).toFixed(1)} ms; enqueue -> HEAD succeeds p50 ${pct(toHead, 50).toFixed(1)} ms, p95 ${pct(toHead, 95).toFixed(1)} ms (n=${toHead.length})`,
  );
}

try {
  await rawBurst(1);
  await rawBurst(CONCURRENCY);
  await spoolBurst();
  await paced();
  console.log(`storage benchmark (${new Date().toISOString()}, node ${process.version}, loopback s3rver in a child process)`);
  for (const r of rows) console.log(`- ${r}`);
} finally {
  headCheck.close();
  await spool.close();
  await db.close();
  server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
