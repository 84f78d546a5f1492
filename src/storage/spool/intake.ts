import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { contentTypeFor, isSafeObjectKey } from '../naming.ts';
import type { FileRow } from './store.ts';
import type { EnqueueOptions, EnqueueResult } from './types.ts';

/** Ids sort by enqueue time, then by a per-process counter, so the manifest keeps recording order. */
export function spoolFileId(now: number, counter: number): string {
  return `${now.toString(36).padStart(9, '0')}-${counter.toString(36).padStart(6, '0')}-${randomBytes(3).toString('hex')}`;
}

/** A sid as a directory name: only safe characters. */
export function spoolDirName(sid: string): string {
  return sid.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || '_';
}

/**
 * Copies (or moves) a closed file into the spool. A move across file systems falls back to copy + unlink.
 * On failure nothing half-written is left behind, and the error is rethrown.
 */
export async function placeInSpool(localPath: string, spoolPath: string, move: boolean): Promise<void> {
  try {
    await mkdir(dirname(spoolPath), { recursive: true });
    if (!move) return await copyFile(localPath, spoolPath);
    try {
      await rename(localPath, spoolPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      await copyFile(localPath, spoolPath);
      await unlink(localPath);
    }
  } catch (e) {
    await rm(spoolPath, { force: true });
    throw e;
  }
}

export type IntakeRefusal = Extract<EnqueueResult, { ok: false }>;

export interface SpoolIntakeDeps {
  readonly spoolDir: string;
  readonly spoolMaxBytes: number;
  readonly now: () => number;
  /** Bytes of the spool files already held (by the upload queue). */
  readonly heldBytes: () => number;
  /** The lease columns of a new row (its node and this process as owner). */
  readonly claimNew: (now: number) => Pick<FileRow, 'node' | 'owner' | 'lease_until'>;
  readonly insertFile: (row: FileRow) => Promise<void>;
  /** Waits before the manifest insert is tried again (the database away for a while); on the injected clock. */
  readonly sleep: (ms: number) => Promise<void>;
  /** How long a failing manifest insert is retried before the intake gives up (the file stays where it was). */
  readonly insertRetryMs: number;
}

/** First and longest wait between manifest insert attempts. */
const INSERT_RETRY_FIRST_MS = 250;
const INSERT_RETRY_MAX_MS = 2000;

/**
 * Takes a closed file into the spool and the manifest, within the spool's byte limit: space is reserved before
 * the copy, so parallel intakes cannot overshoot it. Refusals are results; only a manifest failure throws (and
 * then the spooled copy is removed).
 */
export class SpoolIntake {
  readonly #d: SpoolIntakeDeps;
  /** Bytes of files being copied in, not yet held. */
  #reserved = 0;
  #counter = 0;

  constructor(deps: SpoolIntakeDeps) {
    this.#d = deps;
  }

  /** Bytes the spool holds or has promised. */
  get usedBytes(): number {
    return this.#d.heldBytes() + this.#reserved;
  }

  /**
   * The manifest row, retried while the database is away (a restart, a dropped connection) so a slice closed
   * then is not dropped; the caller's later slices wait behind it, in order. Gives up (throws) after
   * `insertRetryMs`, or when the caller no longer wants the file (`stillWanted`: a recorder fenced meanwhile).
   */
  async #insert(row: FileRow, options: EnqueueOptions): Promise<void> {
    const giveUpAt = this.#d.now() + this.#d.insertRetryMs;
    for (let wait = INSERT_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, INSERT_RETRY_MAX_MS)) {
      try {
        return await this.#d.insertFile(row);
      } catch (e) {
        if (this.#d.now() + wait > giveUpAt) throw e;
        await this.#d.sleep(wait);
        if (options.stillWanted && !options.stillWanted()) throw e;
      }
    }
  }

  async take(sid: string, localPath: string, key: string, options: EnqueueOptions): Promise<{ readonly ok: true; readonly row: FileRow } | IntakeRefusal> {
    if (!isSafeObjectKey(key)) {
      return { ok: false, reason: 'invalid-key', message: `object key "${key}" is not a relative "/"-separated path` };
    }
    let bytes: number;
    try {
      const st = await stat(localPath);
      if (!st.isFile()) throw new Error('not a file');
      bytes = st.size;
    } catch {
      return { ok: false, reason: 'unreadable', message: `cannot read ${localPath}` };
    }
    if (this.usedBytes + bytes > this.#d.spoolMaxBytes) {
      const message = `the upload spool is full: ${this.usedBytes} of ${this.#d.spoolMaxBytes} bytes used, ${bytes} more refused`;
      return { ok: false, reason: 'spool-full', message };
    }
    this.#reserved += bytes;
    try {
      const now = this.#d.now();
      const id = spoolFileId(now, this.#counter++);
      const spoolPath = join(this.#d.spoolDir, spoolDirName(sid), `${id}${extname(key)}`);
      try {
        await placeInSpool(localPath, spoolPath, options.move === true);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC') return { ok: false, reason: 'spool-full', message: 'the disk holding the spool is full' };
        return { ok: false, reason: 'unreadable', message: `cannot copy ${localPath} into the spool: ${code ?? (e as Error).message}` };
      }
      const row: FileRow = {
        id,
        sid,
        key,
        spool_path: spoolPath,
        content_type: options.contentType ?? contentTypeFor(key),
        bytes,
        state: 'pending',
        attempts: 0,
        last_error: null,
        enqueued_at: now,
        uploaded_at: null,
        ...this.#d.claimNew(now),
      };
      try {
        await this.#insert(row, options);
      } catch (e) {
        await rm(spoolPath, { force: true });
        throw e;
      }
      return { ok: true, row };
    } finally {
      // The caller hands the row to the queue at once, which then holds its bytes.
      this.#reserved -= bytes;
    }
  }
}
