import { spawnChild } from './spawn-child.ts';

export interface ChildResult {
  /** Exit code, or null when a signal ended it (`signal`). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Raw bytes (a decoded frame, JSON, text: the caller decides). */
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface RunChildOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** SIGKILL after this long (default 120 s). */
  readonly timeoutMs?: number;
}

/** Runs a short-lived command to completion through spawnChild (so it dies with us) and collects its output. */
export function runChild(command: string, args: readonly string[], opts: RunChildOptions = {}): Promise<ChildResult> {
  const child = spawnChild(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => out.push(d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr });
    });
  });
}
