import type { ChildProcess } from 'node:child_process';

export interface StopChildOptions {
  /** The polite signal (SIGTERM for most helpers, SIGINT for ffmpeg, which then writes its trailers). */
  readonly signal: NodeJS.Signals;
  /** SIGKILL after this long. */
  readonly graceMs: number;
  /** Sends the polite signal once more after this long (ffmpeg notices the first one only between packets). */
  readonly repeatAfterMs?: number;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Asks a child to end, then kills it if it has not gone after graceMs; resolves with its observed exit. */
export async function stopChild<Exit>(child: ChildProcess, exited: Promise<Exit>, opts: StopChildOptions): Promise<Exit> {
  if (running(child)) child.kill(opts.signal);
  const timers = [
    setTimeout(() => {
      if (running(child)) child.kill('SIGKILL');
    }, opts.graceMs),
  ];
  const repeat = opts.repeatAfterMs;
  if (repeat !== undefined) {
    timers.push(
      setTimeout(() => {
        if (running(child)) child.kill(opts.signal);
      }, repeat),
    );
  }
  try {
    return await exited;
  } finally {
    for (const t of timers) clearTimeout(t);
  }
}
