/**
 * An autocannon-like closed loop in a worker thread: `concurrency` keep-alive connections each send the next
 * request as soon as the previous answer arrived, for `durationMs`. Runs beside the server's event loop.
 */
import { Worker } from 'node:worker_threads';

export interface LoadOptions {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly concurrency: number;
  readonly durationMs: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly perSecond: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { url, headers, concurrency, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const u = new URL(url);
const lat = [];
let done = 0, errors = 0;
const end = Date.now() + durationMs;
function one() {
  return new Promise((resolve) => {
    const t = process.hrtime.bigint();
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'GET', headers, agent }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        if (res.statusCode !== 200) errors++;
        lat.push(Number(process.hrtime.bigint() - t) / 1e6);
        done++;
        resolve();
      });
    });
    req.on('error', () => { errors++; resolve(); });
    req.end();
  });
}
async function loop() { while (Date.now() < end) await one(); }
const started = Date.now();
Promise.all(Array.from({ length: concurrency }, loop)).then(() => {
  const secs = (Date.now() - started) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p) => lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : 0;
  agent.destroy();
  parentPort.postMessage({ requests: done, perSecond: done / secs, errors, p50Ms: q(0.5), p99Ms: q(0.99) });
});
`;

export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: opts });
    w.once('message', (m: LoadResult) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}
