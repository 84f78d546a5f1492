// Shared by the notify tests: a real webhook receiver on 127.0.0.1 and a notify module built on a test database.
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Clock } from '../clock/index.ts';
import type { JsonObject } from '../config/index.ts';
import { loadConfig } from '../server/config.ts';
import { LoginThrottle } from '../http/index.ts';
import { createLogger } from '../log/index.ts';
import { createMetricsRegistry } from '../metrics/index.ts';
import { ALL_ROLES } from '../server/module.ts';
import { TEST_CUSTOMER_SECRET, type TestDatabase } from '../testing/index.ts';
import { createNotifyModule, type NotifyModule } from './index.ts';

export const APP_ID = '970CA35de60c44645bbae8a215061b33';
export const SECRET = 'whsec-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly raw: Buffer;
}

export type Answer = number | 'hang';

/** A webhook receiver; `answer` decides each reply from what was received (status, or never answering). */
export async function startReceiver(answer: (r: Received, index: number) => Answer = () => 200) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, raw: Buffer.concat(chunks) };
      received.push(r);
      const a = answer(r, received.length - 1);
      if (a === 'hang') hanging.push(res);
      else res.writeHead(a, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    url: `http://127.0.0.1:${port}/ncs?token=abc`,
    bodies: () => received.map((r) => JSON.parse(r.raw.toString('utf8')) as Envelope),
    /** Answers every request held so far with 200. */
    release() {
      for (const h of hanging.splice(0)) h.writeHead(200).end('{}');
    },
    async close() {
      for (const h of hanging) h.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface Envelope {
  noticeId: string;
  productId: number;
  eventType: number;
  notifyMs: number;
  payload: { cname: string; uid: string; sid: string; sequence: number; sendts: number; serviceType: number; details: Record<string, unknown> };
}

/** Collects every log line (to prove the secret never appears). */
export function logSink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, log: createLogger('debug', stream) };
}

export interface HarnessOptions {
  readonly database: TestDatabase;
  readonly clock: Clock;
  readonly url?: string;
  readonly notify?: JsonObject;
  readonly env?: Record<string, string>;
  readonly lines?: ReturnType<typeof logSink>;
}

/** A notify module as startReeltime would build it, on the given database and clock. */
export async function startNotify(o: HarnessOptions): Promise<NotifyModule> {
  const config = loadConfig({
    cwd: mkdtempSync(join(tmpdir(), 'reeltime-notify-')),
    values: { notify: { ...(o.url ? { webhooks: { [APP_ID]: { url: o.url, secret: SECRET } } } : {}), ...o.notify } },
    env: {
      REELTIME_APP_ID: APP_ID,
      REELTIME_APP_CERTIFICATE: '5CFd2fd1755d40ecb72977518be15d3b',
      REELTIME_CUSTOMER_ID: 'test-customer',
      REELTIME_CUSTOMER_SECRET: TEST_CUSTOMER_SECRET,
      REELTIME_PORT: '0',
      ...o.env,
    },
  });
  const m = createNotifyModule({
    config,
    log: (o.lines ?? logSink()).log,
    database: o.database,
    clock: o.clock,
    roles: new Set(ALL_ROLES),
    metrics: createMetricsRegistry({ processMetrics: false }),
    logins: new LoginThrottle(() => o.clock.now(), config.http),
  });
  await m.start?.('http://127.0.0.1:0');
  return m;
}

export function event(sid: string, eventType = 40, details: Record<string, unknown> = { msgName: 'recorder_started', status: 0 }) {
  return {
    appId: APP_ID,
    sid,
    cname: 'room-1',
    uid: '527841',
    eventType,
    serviceType: 1,
    details: details as { msgName: string },
  };
}
