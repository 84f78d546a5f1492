// CPU ms this process has used, its own and that of the child processes it has waited for (ffmpeg, Chromium,
// servers), from /proc/self/stat; process.cpuUsage() (own only) where there is no /proc.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export function cpuMsSoFar() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): utime, stime, cutime, cstime are fields 14-17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}
