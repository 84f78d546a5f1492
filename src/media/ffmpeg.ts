/**
 * Supervises one ffmpeg child: spawn with a fixed argument list (never a shell) through the project's one spawn
 * helper (the child dies with this process, even on SIGKILL), keep the tail of stderr for error reports, stop
 * cleanly (SIGINT makes ffmpeg finish the current slice and write trailers), and kill it if it does not exit in
 * time.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { spawnChild, stopChild, watchChild } from '../process/index.ts';

/** ffmpeg and ffprobe are found on PATH (docs/configuration.md): PATH is how an operator picks another build. */
export const FFMPEG_BIN = 'ffmpeg';
export const FFPROBE_BIN = 'ffprobe';

export interface FfmpegExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Exit after our own stop request (ffmpeg exits 255 on SIGINT) or a normal end of input. */
  readonly clean: boolean;
  readonly stderrTail: string;
}

export interface FfmpegOptions {
  /** Extra pipes beyond stdio 0..2, readable from the parent (fd 3, 4, ...). */
  readonly extraPipes?: number;
  /** ffmpeg reads its input from stdin (`-i pipe:0`); else stdin is closed. */
  readonly stdin?: boolean;
  readonly cwd?: string;
  /** Bytes of stderr kept for diagnostics. */
  readonly stderrLimit?: number;
}

export class FfmpegProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<FfmpegExit>;
  private stopping = false;

  constructor(
    readonly args: readonly string[],
    opts: FfmpegOptions = {},
  ) {
    const extra = opts.extraPipes ?? 0;
    const stdio: ('ignore' | 'pipe')[] = [opts.stdin ? 'pipe' : 'ignore', 'ignore', 'pipe', ...Array<'pipe'>(extra).fill('pipe')];
    this.child = spawnChild(FFMPEG_BIN, ['-hide_banner', '-nostdin', ...args], { stdio, cwd: opts.cwd });
    this.exited = watchChild(this.child, { stderrLimit: opts.stderrLimit ?? 8192, settleOn: 'close' }).then(
      ({ code, signal, stderrTail }) => {
        const clean = code === 0 || (this.stopping && (code === 255 || signal === 'SIGINT'));
        return Object.freeze({ code, signal, clean, stderrTail });
      },
    );
  }

  /** ffmpeg's stdin, when asked for in the options. */
  stdin(): Writable {
    const s = this.child.stdin;
    if (!s) throw new Error('ffmpeg was started without a stdin pipe');
    return s;
  }

  /** fd 3, 4, ... as passed in extraPipes. */
  pipe(fd: number): Readable {
    const s = this.child.stdio[fd];
    if (!s || !('on' in s)) throw new Error(`no pipe on fd ${fd}`);
    return s as Readable;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Asks ffmpeg to finish (SIGINT). ffmpeg only notices the first SIGINT between packets, so an input that has
   * gone quiet needs a second one (which interrupts the blocked read); SIGKILL after `graceMs`.
   */
  stop(graceMs = 10_000, secondSignalMs = 1500): Promise<FfmpegExit> {
    this.stopping = true;
    return stopChild(this.child, this.exited, { signal: 'SIGINT', graceMs, repeatAfterMs: secondSignalMs });
  }
}

/** Runs ffmpeg to completion (remux, transcode, frame grab); rejects with the stderr tail on failure. */
export async function runFfmpeg(args: readonly string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<void> {
  const p = new FfmpegProcess(['-loglevel', 'error', '-y', ...args], opts.cwd ? { cwd: opts.cwd } : {});
  const timer = setTimeout(() => void p.stop(1000), opts.timeoutMs ?? 120_000);
  const exit = await p.exited;
  clearTimeout(timer);
  if (exit.code !== 0) throw new Error(`ffmpeg failed (${exit.code ?? exit.signal}): ${exit.stderrTail.trim().slice(-500)}`);
}
