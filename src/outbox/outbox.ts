/**
 * Writes to the database that must outlive an outage of it: an item whose write fails is kept in this process, in
 * order behind the earlier items of its key, and tried again with back-off on the injected clock until it is
 * written or its time is up. Every kept item is also appended to a journal file on local disk (JSON lines, synced),
 * so what waits survives the process: a graceful stop flushes for a bounded time and leaves the rest there, a
 * SIGKILL leaves what was kept so far, and the next start of a process on the same directory writes it
 * (docs/deployment.md, "What an outage of Redis or PostgreSQL does"). Items must be idempotent to write: after a
 * crash between a write and its journal record the item is written again.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Clock, TimerHandle } from '../clock/index.ts';
import type { Logger } from '../log/index.ts';
import { pidIsAlive } from '../process/index.ts';

export interface OutboxOptions<T> {
  /** Names the journal files and the log lines (`notify`, `recording-reports`, ...). */
  readonly name: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Writes items of one key, oldest first, all or none; throws while the database does not answer. */
  readonly write: (items: readonly T[]) => Promise<void>;
  /** A failure retrying cannot cure (a rejected transition): the first item of the batch is dropped at once. */
  readonly isPermanent?: (e: unknown) => boolean;
  /** Items written together at most (1: one at a time). */
  readonly maxBatch: number;
  /** Items kept at most across keys; beyond it a new item is refused (logged), older ones go on waiting. */
  readonly maxItems: number;
  /** Back-off: doubling from `retryBaseMs` up to `retryMaxMs`; an item is given up `retryForMs` after it was kept. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly retryForMs: number;
  /** Directory of the journal; undefined keeps items in memory only. Not shared by two running processes. */
  readonly dir: string | undefined;
}

/** Why an item was not written. */
export class OutboxError extends Error {
  override readonly name = 'OutboxError';
  constructor(
    readonly reason: 'full' | 'given_up' | 'permanent' | 'left_in_journal' | 'closed',
    message: string,
  ) {
    super(message);
  }
}

interface Entry<T> {
  readonly id: string;
  readonly key: string;
  readonly item: T;
  /** When it began to wait (raised, or taken over from an old journal): the retry time counts from there. */
  readonly keptSince: number;
  journaled: boolean;
  readonly resolve: () => void;
  readonly reject: (e: Error) => void;
}

interface KeyQueue<T> {
  readonly entries: Entry<T>[];
  attempt: number;
  timer?: TimerHandle | undefined;
  wake?: (() => void) | undefined;
  running?: Promise<void> | undefined;
}

type JournalLine<T> = { readonly op: 'kept'; readonly id: string; readonly key: string; readonly item: T } | { readonly op: 'done'; readonly id: string };

const JOURNAL_SUFFIX = '.jsonl';

/** Journals of outboxes open in this process: another one of this pid is left over (a server closed before). */
const openJournals = new Set<string>();

export class Outbox<T> {
  readonly #o: OutboxOptions<T>;
  readonly #queues = new Map<string, KeyQueue<T>>();
  #count = 0;
  #stopped = false;
  /** This process's journal: `<name>.<host>.<pid>.<random>.jsonl`, so processes sharing a directory never mix. */
  readonly #file: string | undefined;
  #appends: Promise<void> = Promise.resolve();
  /** Called when the last waiting item is written (close() and whenEmpty() wait for it). */
  readonly #drained = new Set<() => void>();
  #waitingLines: string[] = [];

  constructor(o: OutboxOptions<T>) {
    this.#o = o;
    this.#file = o.dir ? join(o.dir, `${o.name}.${hostname()}.${process.pid}.${randomBytes(4).toString('hex')}${JOURNAL_SUFFIX}`) : undefined;
    if (this.#file) openJournals.add(this.#file);
  }

  /** Items waiting (kept or being written). */
  get size(): number {
    return this.#count;
  }

  /**
   * Writes the item behind the earlier ones of its key; resolves once written, rejects (OutboxError) when it is
   * refused, given up or left in the journal at close.
   */
  submit(key: string, item: T): Promise<void> {
    return this.#enqueue(key, item, randomBytes(12).toString('hex'), this.#o.clock.now(), false);
  }

  #enqueue(key: string, item: T, id: string, keptSince: number, journaled: boolean): Promise<void> {
    if (this.#count >= this.#o.maxItems) {
      this.#o.log.error({ outbox: this.#o.name, key, kept: this.#count }, 'outbox full: an item is dropped');
      return Promise.reject(new OutboxError('full', `${this.#o.name}: ${this.#count} items already wait for the database`));
    }
    return new Promise<void>((resolve, reject) => {
      const e: Entry<T> = { id, key, item, keptSince, journaled, resolve, reject };
      this.#count++;
      let q = this.#queues.get(key);
      if (!q) this.#queues.set(key, (q = { entries: [], attempt: 0 }));
      q.entries.push(e);
      // Behind a failing head it waits too: journal it now, so a crash cannot lose it either.
      if (q.attempt > 0 || this.#stopped) this.#journalKept([e]);
      if (this.#stopped) return this.#leave(e);
      if (!q.running) q.running = this.#run(key, q);
    });
  }

  async #run(key: string, q: KeyQueue<T>): Promise<void> {
    // Let callers of the same tick join the first batch.
    await Promise.resolve();
    while (q.entries.length > 0 && !this.#stopped) {
      const batch = q.entries.slice(0, this.#o.maxBatch);
      try {
        await this.#o.write(batch.map((e) => e.item));
        if (q.attempt > 0) this.#o.log.info({ outbox: this.#o.name, key, attempts: q.attempt + 1 }, 'outbox: kept items written after the database came back');
        q.attempt = 0;
        q.entries.splice(0, batch.length);
        this.#settle(batch);
        for (const e of batch) e.resolve();
      } catch (err) {
        const head = batch[0]!;
        if (this.#o.isPermanent?.(err)) {
          this.#o.log.error({ outbox: this.#o.name, key, err: (err as Error).message }, 'outbox: an item was refused; dropped');
          this.#drop(q, head, new OutboxError('permanent', (err as Error).message));
          continue;
        }
        if (q.attempt === 0) this.#o.log.warn({ outbox: this.#o.name, key, err: (err as Error).message }, 'outbox: write failed; kept and retried');
        this.#journalKept(q.entries);
        if (this.#o.clock.now() - head.keptSince >= this.#o.retryForMs) {
          this.#o.log.error({ outbox: this.#o.name, key, keptMs: this.#o.clock.now() - head.keptSince }, 'outbox: an item was given up');
          this.#drop(q, head, new OutboxError('given_up', `${this.#o.name}: not written within ${this.#o.retryForMs} ms`));
          continue;
        }
        q.attempt++;
        // Stopping: what is left stays in the journal (close() collects it).
        if (this.#stopped) break;
        await this.#sleep(q, Math.min(this.#o.retryBaseMs * 2 ** Math.min(q.attempt - 1, 16), this.#o.retryMaxMs));
      }
    }
    q.running = undefined;
    if (q.entries.length === 0 && this.#queues.get(key) === q) this.#queues.delete(key);
  }

  #sleep(q: KeyQueue<T>, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      q.wake = () => {
        if (q.timer) this.#o.clock.clearTimeout(q.timer);
        q.timer = undefined;
        q.wake = undefined;
        resolve();
      };
      q.timer = this.#o.clock.setTimeout(() => q.wake?.(), ms);
    });
  }

  #drop(q: KeyQueue<T>, e: Entry<T>, err: OutboxError): void {
    const i = q.entries.indexOf(e);
    if (i >= 0) q.entries.splice(i, 1);
    this.#settle([e]);
    e.reject(err);
  }

  /** The entries are no longer waiting: counted out, and marked done in the journal if they were kept there. */
  #settle(entries: readonly Entry<T>[]): void {
    this.#count -= entries.length;
    if (this.#count === 0) for (const f of [...this.#drained]) f();
    const done = entries.filter((e) => e.journaled);
    if (done.length > 0) this.#append(done.map((e) => ({ op: 'done', id: e.id })));
  }

  #journalKept(entries: readonly Entry<T>[]): void {
    const fresh = entries.filter((e) => !e.journaled);
    for (const e of fresh) e.journaled = true;
    if (fresh.length > 0) this.#append(fresh.map((e) => ({ op: 'kept', id: e.id, key: e.key, item: e.item })));
  }

  /** Appends lines to the journal, in order, each batch synced to disk; a failure is logged (memory still holds them). */
  #append(lines: readonly JournalLine<T>[]): void {
    const file = this.#file;
    if (!file) return;
    for (const l of lines) this.#waitingLines.push(JSON.stringify(l));
    this.#appends = this.#appends.then(async () => {
      const text = this.#waitingLines.splice(0);
      if (text.length === 0) return;
      try {
        await mkdir(this.#o.dir!, { recursive: true });
        const fh = await open(file, 'a', 0o600);
        try {
          await fh.appendFile(`${text.join('\n')}\n`);
          await fh.datasync();
        } finally {
          await fh.close();
        }
      } catch (e) {
        this.#o.log.error({ outbox: this.#o.name, err: (e as Error).message }, 'outbox: journal write failed');
      }
    });
  }

  /** Left in the journal at close: rejected, to be written by the next start. */
  #leave(e: Entry<T>): void {
    const q = this.#queues.get(e.key);
    if (q) {
      const i = q.entries.indexOf(e);
      if (i >= 0) q.entries.splice(i, 1);
    }
    this.#count--;
    e.reject(
      this.#file
        ? new OutboxError('left_in_journal', `${this.#o.name}: the database did not answer before the stop; kept on disk for the next start`)
        : new OutboxError('closed', `${this.#o.name}: closed before the database answered`),
    );
  }

  /**
   * Takes over the journals of processes that have stopped (same host: the pid is gone; another host sharing the
   * directory: untouched for longer than an item is retried) and writes what they still held. Their items move
   * into this process's journal first, so a crash during the take-over loses nothing. Returns how many it took.
   */
  async replay(): Promise<number> {
    const dir = this.#o.dir;
    if (!dir) return 0;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0;
    }
    let taken = 0;
    const me = hostname();
    for (const n of names) {
      const m = new RegExp(`^${this.#o.name.replace(/[-.]/g, '\\$&')}\\.(.+)\\.(\\d+)\\.[0-9a-f]+\\.jsonl(?:\\.replay-\\d+-[0-9a-f]+)?$`).exec(n);
      if (!m || join(dir, n) === this.#file) continue;
      const path = join(dir, n);
      if (!(await this.#abandoned(path, m[1]!, Number(m[2]), me))) continue;
      const claimed = `${join(dir, n.replace(/\.replay-.*$/, ''))}.replay-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        await rename(path, claimed);
      } catch {
        continue; // another process took it first
      }
      const pending = new Map<string, { key: string; item: T }>();
      try {
        for (const line of (await readFile(claimed, 'utf8')).split('\n')) {
          if (!line.trim()) continue;
          let l: JournalLine<T>;
          try {
            l = JSON.parse(line) as JournalLine<T>;
          } catch {
            continue; // a line cut short by a crash
          }
          if (l.op === 'kept') pending.set(l.id, { key: l.key, item: l.item });
          else pending.delete(l.id);
        }
      } catch (e) {
        this.#o.log.error({ outbox: this.#o.name, file: n, err: (e as Error).message }, 'outbox: an old journal could not be read');
        continue;
      }
      const now = this.#o.clock.now();
      const moved: Entry<T>[] = [];
      for (const [id, p] of pending) {
        const done = this.#enqueue(p.key, p.item, id, now, false);
        done.catch(() => undefined);
        const q = this.#queues.get(p.key);
        const e = q?.entries.find((x) => x.id === id);
        if (e) moved.push(e);
      }
      this.#journalKept(moved);
      await this.#appends;
      await rm(claimed, { force: true });
      taken += pending.size;
      if (pending.size > 0) this.#o.log.info({ outbox: this.#o.name, file: n, items: pending.size }, 'outbox: items of a stopped process taken over');
    }
    return taken;
  }

  async #abandoned(path: string, host: string, pid: number, me: string): Promise<boolean> {
    if (host === me) {
      if (pid === process.pid) return !openJournals.has(path.replace(/\.replay-.*$/, ''));
      if (!pidIsAlive(pid)) return true;
    }
    // Another host's, or a pid running again (reused by another process): untouched for longer than any item is
    // retried, its owner holds nothing in it any more (a live one would have given its items up and marked them).
    try {
      return Date.now() - (await stat(path)).mtimeMs > this.#o.retryForMs;
    } catch {
      return false;
    }
  }

  /** Resolves once nothing waits, or after `boundMs` on the clock, whichever comes first. */
  whenEmpty(boundMs: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        this.#o.clock.clearTimeout(bound);
        this.#drained.delete(finish);
        resolve();
      };
      const bound = this.#o.clock.setTimeout(finish, boundMs);
      this.#drained.add(finish);
    });
  }

  /**
   * Graceful stop: keeps trying for up to `boundMs` (on the clock) to write what waits, then stops; what is left
   * stays in the journal for the next start (logged) or, without a journal, is lost (logged). Returns how many.
   */
  async close(boundMs: number): Promise<number> {
    if (this.#stopped) return 0;
    // Waiting keys try again now rather than after their back-off.
    for (const q of this.#queues.values()) q.wake?.();
    await this.whenEmpty(boundMs);
    this.#stopped = true;
    for (const q of this.#queues.values()) q.wake?.();
    await Promise.all([...this.#queues.values()].map((q) => q.running));
    const left = [...this.#queues.values()].flatMap((q) => q.entries);
    this.#journalKept(left);
    for (const e of left) this.#leave(e);
    this.#queues.clear();
    await this.#appends;
    if (this.#file) openJournals.delete(this.#file);
    if (left.length > 0) {
      if (this.#file) this.#o.log.warn({ outbox: this.#o.name, items: left.length, file: this.#file }, 'outbox: items not written before the stop are kept on disk for the next start');
      else this.#o.log.error({ outbox: this.#o.name, items: left.length }, 'outbox: items not written before the stop are lost');
    }
    return left.length;
  }
}
