/**
 * What a sender of this machine left behind: each dispatcher claims events under an owner id `<uuid>@<tag>` (the
 * process tag of src/process/liveness.ts) and keeps a small mark file named after it in a directory every process of
 * the machine shares. The mark says `sending` while every 200 it received is recorded, and `kept` while it holds a
 * delivery whose record the database did not take (journalled, written by the next process on its data dir). A claim
 * is taken from its owner before its lease ends only when the owner's process is certainly gone and its mark says
 * `sending`: a dead sender's POST is resent at once (a failed-over session's next event waits seconds), while an event
 * whose 200 a stopped process still holds is left to its journal. No mark (another machine, another user, a private
 * /tmp, a graceful stop, a mark pruned) means the lease decides, as before. See docs/notify.md, "How often an event is
 * sent".
 */
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { processTag, taggedProcessIsGone } from '../process/index.ts';

export type SenderState = 'sending' | 'kept';

/** `gone`: its claims may be taken now; `alive`: could become gone, look again soon; `unknown`: wait for the lease. */
export type ClaimOwnerState = 'gone' | 'alive' | 'unknown';

/** Marks of gone owners older than this are removed; a missing mark only ever means "wait for the lease". */
const PRUNE_AFTER_MS = 3_600_000;

const OWNER = /^[0-9a-f-]{36}@[0-9a-f]{12}\.\d+\.\d+$/;

/** The machine-wide mark directory of this user's processes (another user's claims wait for their lease). */
export function defaultSendersDir(): string {
  return join(tmpdir(), `reeltime-notify-senders-${userInfo().uid}`);
}

/**
 * The directory is this user's own and nobody else can write in it (it lives under a shared /tmp): a directory
 * someone else made or can write could point a mark at another file, or forge one.
 */
function trusted(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A new owner id: random, with this process's tag where it has one. */
export function newOwnerId(): string {
  const tag = processTag();
  return tag === '' ? randomUUID() : `${randomUUID()}@${tag}`;
}

/** This dispatcher's mark; every call is best effort (a mark that cannot be written leaves the lease to decide). */
export class SenderMark {
  readonly #file: string | undefined;
  #state: SenderState | undefined;

  constructor(dir: string | undefined, owner: string) {
    this.#file = dir !== undefined && OWNER.test(owner) ? join(dir, owner) : undefined;
    if (this.#file === undefined || dir === undefined) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // Checked below.
    }
    if (!trusted(dir)) {
      this.#file = undefined;
      return;
    }
    this.set('sending');
  }

  /** Written before the journal entry of a kept record, so no crash finds `sending` beside a journalled record. */
  set(state: SenderState): void {
    if (this.#file === undefined || this.#state === state) return;
    try {
      writeFileSync(this.#file, state);
      this.#state = state;
    } catch {
      // No mark reads as "unknown": others wait for the lease (a stale `sending` beside a kept record must not stay).
      this.#state = undefined;
      try {
        rmSync(this.#file, { force: true });
      } catch {
        // Nothing more to do: the mark directory itself is gone or unwritable.
      }
    }
  }

  /** At a graceful stop: a mark with nothing kept goes; one holding kept records stays `kept`. */
  close(kept: boolean): void {
    if (this.#file === undefined) return;
    if (kept) return this.set('kept');
    rmSync(this.#file, { force: true });
  }
}

/** How far another process may trust the claim of `owner` (a lease_owner read from the database). */
export function claimOwnerState(dir: string | undefined, owner: string): ClaimOwnerState {
  if (dir === undefined || !OWNER.test(owner) || !trusted(dir)) return 'unknown';
  let state: string;
  try {
    state = readFileSync(join(dir, owner), 'utf8');
  } catch {
    return 'unknown';
  }
  if (state !== 'sending') return 'unknown';
  return taggedProcessIsGone(owner.slice(owner.indexOf('@') + 1)) ? 'gone' : 'alive';
}

/** Removes marks of gone owners untouched for an hour (long past any lease of theirs). */
export function pruneSenderMarks(dir: string | undefined, nowMs = Date.now()): void {
  if (dir === undefined || !trusted(dir)) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!OWNER.test(name) || !taggedProcessIsGone(name.slice(name.indexOf('@') + 1))) continue;
    try {
      if (nowMs - statSync(join(dir, name)).mtimeMs > PRUNE_AFTER_MS) rmSync(join(dir, name), { force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}
