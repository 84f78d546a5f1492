/**
 * How a long-running child ended, observed once: its exit code or signal and the tail of its stderr (kept for
 * error reports, bounded). ffmpeg and the capture helpers (Xvfb, PulseAudio, Chromium) share this.
 */
import type { ChildProcess } from 'node:child_process';

export interface ChildOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string;
}

export interface WatchChildOptions {
  /** Characters of stderr kept. */
  readonly stderrLimit: number;
  /**
   * `close` waits for the child's pipes too (their last bytes are read first); `exit` does not, for a child whose
   * own children may hold its stderr open (Chromium).
   */
  readonly settleOn: 'exit' | 'close';
}

/** Reads the child's stderr into a bounded tail and resolves once when it has ended (a failed spawn included). */
export function watchChild(child: ChildProcess, opts: WatchChildOptions): Promise<ChildOutcome> {
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    stderr = (stderr + d).slice(-opts.stderrLimit);
  });
  return new Promise((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (done) return;
      done = true;
      resolve(Object.freeze({ code, signal, stderrTail: stderr }));
    };
    child.once('error', (err) => {
      stderr += `\nspawn failed: ${err.message}`;
      finish(null, null);
    });
    child.once(opts.settleOn, finish);
  });
}
