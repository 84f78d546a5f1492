/**
 * For tests that SIGKILL a whole reeltime process: the kill, and the check that no ffmpeg child (or anything else
 * working in the process's data dir) outlives it.
 */
import { childrenOf, isRunning, processTable, type ProcessInfo } from '../process/index.ts';
import type { ServerProcess } from '../testing/index.ts';

export interface HardKill {
  /** The ffmpeg children the process had at the kill. */
  readonly ffmpegs: readonly ProcessInfo[];
  /** Processes of ours still alive when the wait ended (expected: none). */
  readonly survivors: readonly string[];
  /** From the kill to the last child gone (ms). */
  readonly goneMs: number;
}

/** SIGKILLs the server, then waits up to `waitMs` for its ffmpeg children and anything using `dataDir` to be gone. */
export async function killHard(server: ServerProcess, dataDir: string, waitMs = 2000): Promise<HardKill> {
  const ffmpegs = childrenOf(server.pid).filter((p) => p.argv[0] === 'ffmpeg');
  const killedAt = performance.now();
  server.child.kill('SIGKILL');
  // Ours: the children seen above, and anything else whose command line points into this data dir.
  const ours = () => [
    ...new Map(
      [...ffmpegs.filter(isRunning), ...processTable().filter((p) => p.state !== 'Z' && p.argv.some((a) => a.includes(dataDir)))].map((p) => [p.pid, p]),
    ).values(),
  ];
  while (ours().length > 0 && performance.now() < killedAt + waitMs) await new Promise((r) => setTimeout(r, 5));
  return { ffmpegs, survivors: ours().map((p) => `${p.pid} ${p.argv.join(' ')}`), goneMs: performance.now() - killedAt };
}
