// Loaded (--import) into every test file's process by scripts/test.mjs: at exit it reports the CPU the file used,
// its own and that of the child processes it waited for, so the runner can show where the suite's CPU goes. The
// suite is CPU-bound on a 2-core machine: CPU, not wall time, is what a file costs the others.
// It also reports the longest the process's event loop stood still: reeltime runs in the test's process, and a loop
// held for seconds fails WebRTC peers' ICE consent (session 26: a mix catching up for 12-22 s at a time).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuMsSoFar } from './process-cpu.mjs';

const loop = monitorEventLoopDelay({ resolution: 20 });
loop.enable();
process.on('exit', () => {
  loop.disable();
  process.stderr.write(`\nℹ cpu_ms ${Math.round(cpuMsSoFar())}\nℹ loop_delay_max_ms ${Math.round(loop.max / 1e6)}\n`);
});
