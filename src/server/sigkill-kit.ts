/**
 * For tests that SIGKILL a whole reeltime process: small publishers, the kill, and the check that no ffmpeg child
 * (or anything else working in the process's data dir) outlives it.
 */
import { rmSync } from 'node:fs';
import type { SyntheticPublisher } from '../channel/index.ts';
import { childrenOf, isRunning, processTable, type ProcessInfo } from '../process/index.ts';
import { APP, connectedPublisher, rtcToken } from '../recorders/individual/testing/harness.ts';
import type { ServerProcess } from '../testing/index.ts';

export interface TestPublisher {
  readonly uid: number;
  readonly color: string;
  readonly toneHz: number;
}

/** A connected synthetic H.264 publisher, small and slow: these tests are about processes and files, on a loaded machine. */
export function publishSmall(baseUrl: string, cname: string, p: TestPublisher): Promise<SyntheticPublisher> {
  return connectedPublisher({
    baseUrl,
    appId: APP,
    cname,
    uid: p.uid,
    token: rtcToken(cname, p.uid),
    color: p.color,
    toneHz: p.toneHz,
    codec: 'h264',
    width: 160,
    height: 120,
    fps: 10,
  });
}

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

/** The end of a kill test, whatever happened: the first server killed if it still runs, publishers gone, the data dir removed (`KEEP=1` keeps it). */
export async function cleanUpKillTest(first: ServerProcess, publishers: readonly SyntheticPublisher[], dataDir: string): Promise<void> {
  if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
  await Promise.all(publishers.map((p) => p.kill().catch(() => undefined)));
  if (!process.env.KEEP) rmSync(dataDir, { recursive: true, force: true });
  else console.log('kept', dataDir);
}
