/** CPU of processes read from Linux's /proc, for benchmarks that count what child processes cost. */
import { readFileSync } from 'node:fs';
import { cpuMsSoFar } from '../../scripts/process-cpu.mjs';

/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;

/** utime + stime (s) of `pid`, or undefined once it has gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces: the fields start after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/**
 * CPU (s) of this process so far and of the child processes it has waited for (an ffmpeg counts once it has exited
 * and been reaped): what the test runner counts per file (scripts/process-cpu.mjs).
 */
export function cpuWithReapedChildrenSeconds(): number {
  return cpuMsSoFar() / 1000;
}

/** CPU (s) of this Node process so far, user + system. */
export function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** The 1, 5 and 15 minute load averages from /proc/loadavg, for the benchmark report. */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
