/** Test helpers of the process module. */
import { readFileSync } from 'node:fs';
import { pidIsAlive } from './liveness.ts';
import { processInfo } from './proc-table.ts';

/** A pid no process holds now (counting down from the kernel's largest): a dead process, without starting one. */
export function unusedPid(): number {
  const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  for (let pid = max - 1; pid > 1; pid--) if (processInfo(pid) === undefined && !pidIsAlive(pid)) return pid;
  throw new Error('no unused pid');
}
