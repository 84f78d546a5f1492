/**
 * Whether a process another one left a claim under has gone: a crashed process's claims (spool rows, journals,
 * scratch dirs) can then be taken at once instead of after a timeout.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { processInfo } from './proc-table.ts';

/** True while a process with this pid exists here (EPERM: it is someone else's, still alive). */
export function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Where a pid names one process: this kernel's boot and this pid namespace. Two containers on one kernel, or one
 * machine before and after a reboot, never share a scope. Undefined off Linux.
 */
function pidScope(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const namespace = readlinkSync('/proc/self/ns/pid');
    return createHash('sha256').update(`${boot} ${namespace}`).digest('hex').slice(0, 12);
  } catch {
    return undefined;
  }
}

let ownTag: string | undefined;

/**
 * This process, as `<scope>.<pid>.<start time>`: enough for another process of the same scope to tell, without a
 * lease running out, that this one has gone (the start time tells a reused pid apart). Empty where no scope is known.
 */
export function processTag(): string {
  if (ownTag === undefined) {
    const scope = pidScope();
    const startTime = processInfo(process.pid)?.startTime;
    ownTag = scope !== undefined && startTime !== undefined ? `${scope}.${process.pid}.${startTime}` : '';
  }
  return ownTag;
}

/**
 * True only when `tag` names a process of this scope that is certainly gone (or a zombie). A tag of another
 * machine, container or boot, a malformed one, or a process still running gives false: the caller then waits for
 * its usual timeout.
 */
export function taggedProcessIsGone(tag: string): boolean {
  const [scope, pidText, startText] = tag.split('.');
  const own = processTag();
  if (own === '' || scope !== own.split('.')[0] || pidText === undefined || startText === undefined) return false;
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  const now = processInfo(pid);
  return now === undefined || now.startTime !== Number(startText) || now.state === 'Z';
}
