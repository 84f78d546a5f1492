/** Reads Linux's /proc: which processes run, their parent, state and command line (tests and diagnostics). */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** One letter from /proc/<pid>/stat: R, S, D, Z (zombie: dead, waiting to be reaped), ... */
  readonly state: string;
  /** Clock ticks after boot; with the pid it names one process even when pids are reused. */
  readonly startTime: number;
  readonly argv: readonly string[];
  /** User plus system CPU time so far, in seconds (utime + stime over USER_HZ, 100 on Linux). */
  readonly cpuSeconds: number;
}

/** Linux reports utime and stime in USER_HZ ticks, fixed at 100 for user space on every architecture. */
const USER_HZ = 100;

/** One process, or undefined when it has gone (or /proc is not there). */
export function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may itself hold spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.at(-1) === '') argv.pop();
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / USER_HZ;
    return { pid, ppid: Number(fields[1]), state: fields[0]!, startTime: Number(fields[19]), argv, cpuSeconds };
  } catch {
    return undefined;
  }
}

export function processTable(): ProcessInfo[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  return pids.map((p) => processInfo(Number(p))).filter((p): p is ProcessInfo => p !== undefined);
}

/** True while that very process (same pid and start time) exists and is not a zombie. */
export function isRunning(p: Pick<ProcessInfo, 'pid' | 'startTime'>): boolean {
  const now = processInfo(p.pid);
  return now !== undefined && now.startTime === p.startTime && now.state !== 'Z';
}

/** The direct children of `pid`. */
export function childrenOf(pid: number): ProcessInfo[] {
  return processTable().filter((p) => p.ppid === pid);
}

/** CPU seconds (user + system) so far of `pid` and every descendant now alive (benchmarks: a server and its ffmpegs). */
export function treeCpuSeconds(pid: number): number {
  const table = processTable();
  const inTree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of table) {
      if (inTree.has(p.pid) || !inTree.has(p.ppid)) continue;
      inTree.add(p.pid);
      grew = true;
    }
  }
  return table.filter((p) => inTree.has(p.pid)).reduce((s, p) => s + p.cpuSeconds, 0);
}
