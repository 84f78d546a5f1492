import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../clock/index.ts';
import type { SfuTestHooks } from '../channel/index.ts';
import type { JsonObject } from '../config/index.ts';
import { loadConfig, type Config } from '../server/config.ts';
import type { DialectName } from '../db/index.ts';
import { createLogger } from '../log/index.ts';
import type { Recorder } from '../recording/index.ts';
import type { RecorderTestHooks } from '../recorders/index.ts';
import { startReeltime, type Reeltime, type Role } from '../server/index.ts';
import { TEST_CUSTOMER_SECRET } from './credentials.ts';
import { openTestDatabase, type TestDatabase } from './db.ts';

export interface TestServer extends Reeltime {
  readonly config: Config;
  readonly dataDir: string;
}

export interface TestServerOptions {
  readonly dialect?: DialectName;
  readonly clock?: Clock;
  readonly roles?: readonly Role[];
  /** Config file values (merged over the test defaults). */
  readonly values?: JsonObject;
  /** Environment overrides. */
  readonly env?: Record<string, string>;
  /** Keep this data dir (restart tests); a fresh temp dir otherwise. */
  readonly dataDir?: string;
  /** Use this database and leave it open on close (restart tests); a fresh one otherwise. */
  readonly database?: TestDatabase;
  /** Recorders per mode (test doubles); the default recorders otherwise. */
  readonly recorders?: readonly Recorder[];
  /** Every log line (pino JSON, level info and up) is pushed here: for tests of what the server says at start. */
  readonly logLines?: string[];
  /** Fault injection in the channel's SFU (instead of patching its prototype). */
  readonly sfuTestHooks?: SfuTestHooks;
  /** Fault injection in the default recorders (e.g. a slicer's ffmpeg killed). */
  readonly recorderTestHooks?: RecorderTestHooks;
}

/** Environment of a test server: loopback, an ephemeral port, the data dir and fixed test credentials. */
export function testServerEnv(dataDir: string): Record<string, string> {
  return {
    REELTIME_PORT: '0',
    REELTIME_HOST: '127.0.0.1',
    REELTIME_DATA_DIR: dataDir,
    REELTIME_APP_ID: '970CA35de60c44645bbae8a215061b33',
    REELTIME_APP_CERTIFICATE: '5CFd2fd1755d40ecb72977518be15d3b',
    REELTIME_CUSTOMER_ID: 'test-customer',
    REELTIME_CUSTOMER_SECRET: TEST_CUSTOMER_SECRET,
  };
}

/**
 * A whole reeltime on 127.0.0.1 with an ephemeral port, a temp data dir, fixed test credentials and a fresh
 * database. Logs are silent unless REELTIME_TEST_LOG is set.
 */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'reeltime-test-'));
  const config = loadConfig({
    cwd: dataDir,
    values: { ...opts.values },
    env: { ...testServerEnv(dataDir), ...opts.env },
  });
  const database = opts.database ?? (await openTestDatabase(opts.dialect ?? 'sqlite'));
  const lines = opts.logLines;
  const log = lines
    ? createLogger('info', { write: (line: string) => void lines.push(line) })
    : createLogger(process.env.REELTIME_TEST_LOG ?? 'silent');
  const server = await startReeltime({
    config,
    database,
    log,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.roles ? { roles: opts.roles } : {}),
    ...(opts.recorders ? { recorders: opts.recorders } : {}),
    ...(opts.sfuTestHooks ? { channel: { sfuTestHooks: opts.sfuTestHooks } } : {}),
    ...(opts.recorderTestHooks ? { recorderTestHooks: opts.recorderTestHooks } : {}),
  });
  return {
    ...server,
    config,
    dataDir,
    async close() {
      await server.close();
      if (!opts.database) await database.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
