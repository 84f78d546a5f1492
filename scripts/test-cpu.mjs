// Loaded (--import) into every test file's process by scripts/test.mjs: at exit it reports the CPU the file used,
// its own and that of the child processes it waited for, so the runner can show where the suite's CPU goes. The
// suite is CPU-bound on a 2-core machine: CPU, not wall time, is what a file costs the others.
import { cpuMsSoFar } from './process-cpu.mjs';

process.on('exit', () => process.stderr.write(`\nℹ cpu_ms ${Math.round(cpuMsSoFar())}\n`));
