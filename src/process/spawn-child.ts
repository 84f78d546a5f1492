/**
 * The one way reeltime starts a child process (ffmpeg today; Chromium, Xvfb and PulseAudio for web recording).
 * No child may outlive the process that started it, even when that process is SIGKILLed (OOM killer, crash), so
 * on Linux every child is started through `setpriv --pdeathsig KILL` (util-linux): setpriv sets
 * PR_SET_PDEATHSIG in the forked child and then execs the command, so the kernel kills the command as soon as
 * its parent goes. Why this is right for Node and what it does not cover: docs/processes.md.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/** Where Debian (and most distributions) install util-linux's setpriv; util-linux is Essential on Debian. */
const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv', '/usr/sbin/setpriv'] as const;

export type ChildSpawnOptions = Omit<SpawnOptions, 'shell' | 'detached'>;

let setprivPath: string | undefined;

function setpriv(): string {
  setprivPath ??= SETPRIV_CANDIDATES.find((p) => existsSync(p));
  if (setprivPath === undefined) {
    throw new Error(
      'setpriv (util-linux) not found: reeltime needs it so child processes die with the server; install util-linux (scripts/setup.sh does)',
    );
  }
  return setprivPath;
}

/**
 * How `command args` is actually executed: on Linux through setpriv with the death signal, elsewhere as is (there
 * only the exit hook below applies). Exposed for tests and diagnostics.
 */
export function childCommandLine(command: string, args: readonly string[]): [string, string[]] {
  if (process.platform !== 'linux') return [command, [...args]];
  return [setpriv(), ['--pdeathsig', 'KILL', '--', command, ...args]];
}

/** Children still running; SIGKILLed if this process exits without having stopped them. */
const live = new Set<ChildProcess>();
let exitHook = false;

/**
 * Starts `command` with a fixed argument list (never a shell) as a child that dies with this process. Must be
 * called on the main thread: the kernel's death signal follows the *thread* that forked the child, and Node's
 * main thread lives exactly as long as the process, while a worker thread's exit would kill its children.
 * A command that cannot be executed exits with code 127 (not found) or 126 and says why on stderr.
 */
export function spawnChild(
  command: string,
  args: readonly string[],
  options: ChildSpawnOptions & { stdio: 'pipe' | ['pipe', 'pipe', 'pipe'] },
): ChildProcessWithoutNullStreams;
export function spawnChild(command: string, args: readonly string[], options?: ChildSpawnOptions): ChildProcess;
export function spawnChild(command: string, args: readonly string[], options: ChildSpawnOptions = {}): ChildProcess {
  if (!isMainThread) {
    throw new Error('spawnChild must be called on the main thread: the death signal follows the thread that forked the child');
  }
  const [file, argv] = childCommandLine(command, args);
  const child = spawn(file, argv, { ...options, shell: false, detached: false });
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}
