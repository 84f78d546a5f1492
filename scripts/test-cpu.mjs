// Loaded (--import) into every test file's process by scripts/test.mjs: at exit it reports the CPU the file used,
// its own and that of the child processes it waited for (ffmpeg, Chromium, servers), so the runner can show where
// the suite's CPU goes. The suite is CPU-bound on a 2-core machine: CPU, not wall time, is what a file costs the others.
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

process.on('exit', () => {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): utime, stime, cutime, cstime are fields 14-17.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    process.stderr.write(`\nℹ cpu_ms ${Math.round((ticks * 1000) / TICKS_PER_SECOND)}\n`);
  } catch {
    // not Linux: no figure
  }
});
