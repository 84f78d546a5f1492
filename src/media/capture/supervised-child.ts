/**
 * A long-running helper process of a capture (Xvfb, PulseAudio, Chromium): started through spawnChild (it dies
 * with us), its exit observed once, its stderr tail kept for reports, and ended on request with SIGTERM, then
 * SIGKILL if it does not go in time.
 */
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { spawnChild } from '../../process/index.ts';

export type CaptureChildName = 'display' | 'sound' | 'browser' | 'encoder';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string;
}

export class SupervisedChild {
  readonly child: ChildProcess;
  readonly exited: Promise<ChildExit>;
  private stderr = '';
  private stopping = false;

  constructor(
    readonly name: CaptureChildName,
    command: string,
    args: readonly string[],
    opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdio?: StdioOptions; stderrLimit?: number } = {},
  ) {
    this.child = spawnChild(command, args, {
      stdio: opts.stdio ?? ['ignore', 'ignore', 'pipe'],
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    });
    const limit = opts.stderrLimit ?? 4096;
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-limit);
    });
    this.exited = new Promise((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (done) return;
        done = true;
        resolve(Object.freeze({ code, signal, stderrTail: this.stderr }));
      };
      this.child.once('error', (err) => {
        this.stderr += `\nspawn failed: ${err.message}`;
        finish(null, null);
      });
      this.child.once('exit', finish);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** True once stop() was asked: an exit after that is not a crash. */
  get stopRequested(): boolean {
    return this.stopping;
  }

  /** Marks the exit that follows as requested (for children ended another way, e.g. a browser closed over CDP). */
  expectExit(): void {
    this.stopping = true;
  }

  async stop(graceMs = 5000): Promise<ChildExit> {
    this.stopping = true;
    if (this.running) this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (this.running) this.child.kill('SIGKILL');
    }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
