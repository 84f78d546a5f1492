/**
 * Debian's coturn (`turnserver`) on loopback for tests: TURN over UDP and TCP on one port, short-lived credentials
 * checked with `use-auth-secret`, no TLS, no CLI, no config file, its database in a temporary folder. It only
 * listens and relays on 127.0.0.1, and `allow-loopback-peers` lets it relay to the channel node on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnChild, stopChild } from '../../../process/index.ts';
import { freeTcpUdpPort } from '../../../testing/ports.ts';
import { waitUntil } from '../../../testing/wait.ts';

export interface TestCoturn {
  readonly port: number;
  /** `turn:127.0.0.1:<port>?transport=udp` and `…tcp`. */
  readonly urls: readonly string[];
  readonly secret: string;
  /** What coturn logged so far (allocations, 401s). */
  output(): string;
  close(): Promise<void>;
}

const tcpAnswers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

export async function startTestCoturn(secret = 'reeltime-test-turn-secret'): Promise<TestCoturn> {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-coturn-'));
  const port = await freeTcpUdpPort();
  const child = spawnChild(
    'turnserver',
    [
      '-n',
      `--listening-ip=127.0.0.1`,
      `--relay-ip=127.0.0.1`,
      `--listening-port=${port}`,
      '--use-auth-secret',
      `--static-auth-secret=${secret}`,
      '--realm=reeltime.test',
      '--no-tls',
      '--no-dtls',
      '--no-cli',
      '--allow-loopback-peers',
      '--no-software-attribute',
      '--log-file=stdout',
      '--simple-log',
      '--verbose',
      `--pidfile=${join(dir, 'turnserver.pid')}`,
      `--userdb=${join(dir, 'turndb')}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  let output = '';
  child.stdout?.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (output += b.toString()));
  const close = async () => {
    await stopChild(child, exited, { signal: 'SIGTERM', graceMs: 2000 });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => {
      if (child.exitCode !== null) throw new Error(`turnserver exited with ${child.exitCode}:\n${output}`);
      return output.includes('Total General servers') && (await tcpAnswers(port));
    }, { timeoutMs: 20_000, intervalMs: 100, what: 'coturn listening' });
  } catch (e) {
    await close();
    throw e;
  }
  return {
    port,
    urls: [`turn:127.0.0.1:${port}?transport=udp`, `turn:127.0.0.1:${port}?transport=tcp`],
    secret,
    output: () => output,
    close,
  };
}
