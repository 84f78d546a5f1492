import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver's built-in credentials. */
export const S3RVER_KEY = 'S3RVER';

export interface TestS3Server {
  readonly url: string;
  readonly port: number;
  /** Every object key written (PUT, POST/multipart completion, copy), in order. */
  readonly writes: string[];
  /** Stops listening and drops open connections (an outage). */
  stop(): Promise<void>;
  /** Listens again on the same port with the same data. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A bucket CORS rule letting pages of `origin` (one `*` allowed) GET its objects, as a customer sets for the console. */
const corsRule = (origin: string) =>
  `<CORSConfiguration><CORSRule><AllowedOrigin>${origin}</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><MaxAgeSeconds>600</MaxAgeSeconds></CORSRule></CORSConfiguration>`;

/**
 * An in-process S3 server on 127.0.0.1 (ephemeral port) with the given buckets; `corsOrigin`: their CORS rule allows
 * that origin's pages to read (none by default: a browser is refused, as by a bucket without CORS).
 */
export async function startTestS3Server(buckets: readonly string[] = ['recordings'], { corsOrigin }: { corsOrigin?: string } = {}): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'reeltime-s3-'));
  const writes: string[] = [];
  let server: S3rver | undefined;
  let port = 0;
  const run = async () => {
    const s = new S3rver({
      address: '127.0.0.1',
      port,
      directory,
      silent: true,
      configureBuckets: buckets.map((name) => ({ name, configs: corsOrigin ? [corsRule(corsOrigin)] : [] })),
    });
    s.on('event', (e) => {
      for (const r of e.Records) if (/^ObjectCreated/.test(r.eventName)) writes.push(decodeURIComponent(r.s3.object.key));
    });
    const addr = await s.run();
    port = addr.port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    s.httpServer?.closeAllConnections();
    await s.close();
  };
  await run();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    writes,
    stop,
    restart: run,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
