/**
 * A whole reeltime in its own process (`node bin/reeltime.mjs`), for tests that kill or restart it the way an
 * operator or the OOM killer would. The child is started through the project's spawn helper, so it cannot
 * outlive the test either.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnChild } from '../process/index.ts';
import { testServerEnv } from './server.ts';

const BIN = fileURLToPath(new URL('../../bin/reeltime.mjs', import.meta.url));
/**
 * The test runner's bundle of the same sources (scripts/test-server-bundle.mjs), when it built one: it starts with
 * half the CPU of bin/reeltime.mjs, which compiles through tsx in every process.
 */
const BUNDLE = process.env.REELTIME_TEST_SERVER_BUNDLE;
/** Node's arguments that run `reeltime` (the CLI's argv follows them). */
export const REELTIME_ENTRY: readonly string[] = BUNDLE ? ['--enable-source-maps', BUNDLE] : [BIN];

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** http://127.0.0.1:<port> as the server printed it. */
  readonly url: string;
  /** What the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** SIGTERM (a clean shutdown), then SIGKILL if it is still running after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

export interface ServerProcessOptions {
  readonly dataDir: string;
  /** Environment on top of the test server's (loopback, port 0, data dir, test credentials). */
  readonly env?: Record<string, string>;
  /** CLI arguments (`serve` when empty). */
  readonly args?: readonly string[];
  readonly readyTimeoutMs?: number;
}

export async function startServerProcess(opts: ServerProcessOptions): Promise<ServerProcess> {
  // Only what the test sets: no REELTIME_*, DATABASE_URL or REDIS_URL leaks in from the shell running the tests.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('REELTIME_') && k !== 'DATABASE_URL' && k !== 'REDIS_URL'),
  );
  const child = spawnChild(process.execPath, [...REELTIME_ENTRY, ...(opts.args ?? [])], {
    cwd: opts.dataDir,
    env: { ...inherited, REELTIME_LOG_LEVEL: 'warn', ...testServerEnv(opts.dataDir), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reeltime did not start within ${opts.readyTimeoutMs ?? 60_000} ms:\n${output}`));
    }, opts.readyTimeoutMs ?? 60_000);
    const onData = (d: Buffer) => {
      output = (output + d.toString()).slice(-20_000);
      const m = /reeltime is running at (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`reeltime exited before it was ready (${child.exitCode ?? child.signalCode}):\n${output}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    url,
    output: () => output,
    async close(graceMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
