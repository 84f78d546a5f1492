/**
 * A long-running helper process of a capture (Xvfb, PulseAudio, Chromium): started through spawnChild (it dies
 * with us), its exit observed once, its stderr tail kept for reports, and ended on request with SIGTERM, then
 * SIGKILL if it does not go in time.
 */
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { spawnChild, stopChild, watchChild, type ChildOutcome } from '../../process/index.ts';

export type CaptureChildName = 'display' | 'sound' | 'sound-reader' | 'browser' | 'encoder' | 'pusher';

export type ChildExit = ChildOutcome;

export class SupervisedChild {
  readonly child: ChildProcess;
  readonly exited: Promise<ChildExit>;
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
    this.exited = watchChild(this.child, { stderrLimit: opts.stderrLimit ?? 4096, settleOn: 'exit' });
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

  stop(graceMs = 5000): Promise<ChildExit> {
    this.stopping = true;
    return stopChild(this.child, this.exited, { signal: 'SIGTERM', graceMs });
  }
}
