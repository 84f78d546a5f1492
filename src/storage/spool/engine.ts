import { rm, stat } from 'node:fs/promises';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { StorageSettings } from '../config.ts';
import { objectKey, storedCacheControl } from '../naming.ts';
import { describeStorage } from '../storage-config.ts';
import { createUploader, scrubSecrets, UploadError } from '../uploaders/index.ts';
import { retryDelay } from './backoff.ts';
import { fileTransition, type AttemptOutcome, type FileStep } from './file-transition.ts';
import { SpoolIntake } from './intake.ts';
import { SpoolLeases, spoolNode } from './leases.ts';
import { UploadQueue } from './queue.ts';
import { UploadSessions, type SessionState } from './sessions.ts';
import { latestPerKey, type FileRow, type SpoolStore } from './store.ts';
import type {
  EnqueueOptions,
  EnqueueResult,
  FinishResult,
  OpenSessionInput,
  SessionUploadStatus,
  StorageEventListener,
  UploadingStatus,
  UploadTotals,
  UploadSession,
} from './types.ts';

export interface SpoolDeps {
  readonly store: SpoolStore;
  readonly config: StorageSettings;
  readonly clock: Clock;
  readonly log: Logger;
  /** Key that seals persisted storage configs. */
  readonly sealKey: Buffer;
  /** The outbound guard's policy for the customers' storage hosts, checked at connect time (production). */
  readonly outbound?: OutboundPolicy | undefined;
  /** Tests may substitute the uploader factory. */
  readonly makeUploader?: typeof createUploader;
  /** Where this spool lives; default `<hostname>:<spoolDir>`. Only processes of one node share files. */
  readonly node?: string;
  /** Times each upload attempt for /metrics. */
  readonly meter?: UploadMeter | undefined;
}

/** One upload attempt as /metrics counts it: where it went, how long it took, how it ended. */
export interface UploadMeter {
  attempt(destination: string, seconds: number, outcome: 'uploaded' | 'failed', failure?: 'config' | 'transient'): void;
}

type RetryStep = Extract<FileStep, { state: 'pending' }>;

/**
 * The backup spool: every file is copied here first and deleted only after the bucket confirmed it. Failed
 * uploads are retried with backoff on the injected clock; the manifest in the database lets a restarted
 * process finish the job. This class wires the parts: intake into the spool, the upload queue, the leases on
 * manifest rows, the sessions with their uploaders, and the file-row transition (docs/storage.md, "Inside the
 * spool").
 */
/**
 * A slice closed while the database is away waits this long for its manifest row (docs/deployment.md): longer
 * than a database restart or failover, shorter than a recorder's patience with a stuck upload chain.
 */
const MANIFEST_RETRY_MS = 5 * 60 * 1000;

/**
 * An attempt whose manifest write failed (the database away) is tried again after 250 ms, doubling to 5 s, as the
 * recording's reports wait for the database: not after the upload backoff's 30 s cap, which a stop waiting for its
 * last files would outlast (its answer was 206 "upload timeout" after an outage of seconds).
 */
const BOOKKEEPING_RETRY_FIRST_MS = 250;
const BOOKKEEPING_RETRY_MAX_MS = 5000;

export class UploadSpool {
  readonly #d: SpoolDeps;
  readonly #queue: UploadQueue;
  readonly #leases: SpoolLeases;
  readonly #sessions: UploadSessions;
  readonly #intake: SpoolIntake;
  #closed = false;
  /** Failed attempts per session since its last log line (one line per session and retry round, item 15). */
  readonly #failures = new Map<string, { failed: number; retryInMs: number; reason: string; detail: string | undefined }>();
  /** Attempts in a row whose manifest write failed, per file row. */
  readonly #bookkeepingFailures = new Map<string, number>();

  constructor(deps: SpoolDeps) {
    this.#d = deps;
    const makeUploader = deps.makeUploader ?? createUploader;
    this.#sessions = new UploadSessions({
      store: deps.store,
      log: deps.log,
      sealKey: deps.sealKey,
      makeUploader: (storage) => makeUploader(storage, deps.config, () => deps.clock.now(), deps.outbound),
    });
    this.#queue = new UploadQueue({
      clock: deps.clock,
      concurrency: deps.config.concurrency,
      attempt: async (row) => {
        await this.#attempt(row);
        this.#bookkeepingFailures.delete(row.id);
      },
      onAttemptRejected: (row, e) => {
        // A bookkeeping failure (database) must never become an unhandled rejection: log, try again soon.
        const failed = (this.#bookkeepingFailures.get(row.id) ?? 0) + 1;
        this.#bookkeepingFailures.set(row.id, failed);
        const retryInMs = retryDelay(failed, BOOKKEEPING_RETRY_FIRST_MS, BOOKKEEPING_RETRY_MAX_MS, false);
        // One line at the first failure and every tenth: an outage of minutes would repeat it every 5 s per file.
        if (failed % 10 === 1) deps.log.error({ err: e, sid: row.sid, failed, retryInMs }, 'upload attempt bookkeeping failed');
        this.#queue.retryLater(row.id, retryInMs);
      },
      afterAttempt: (row) => {
        this.#logFailures(row.sid);
        this.#settle(row.sid);
      },
    });
    this.#leases = new SpoolLeases({
      store: deps.store,
      clock: deps.clock,
      log: deps.log,
      leaseMs: deps.config.leaseMs,
      node: deps.node ?? spoolNode(deps.config.spoolDir),
      adopt: (rows) => this.#queue.add(rows),
      holding: () => this.#queue.heldIds(),
      retain: (asked, held) => this.#queue.retain(asked, held),
    });
    this.#intake = new SpoolIntake({
      spoolDir: deps.config.spoolDir,
      spoolMaxBytes: deps.config.spoolMaxBytes,
      now: () => deps.clock.now(),
      heldBytes: () => this.#queue.bytes,
      claimNew: (now) => this.#leases.claimNew(now),
      insertFile: (row) => deps.store.insertFile(row),
      sleep: (ms) => new Promise((resolve) => deps.clock.setTimeout(resolve, ms)),
      insertRetryMs: MANIFEST_RETRY_MS,
    });
  }

  get spoolBytes(): number {
    return this.#intake.usedBytes;
  }

  /** What this process still has to upload: files, their bytes, and the enqueue time (ms) of the oldest. */
  backlog(): { readonly files: number; readonly bytes: number; readonly oldestEnqueuedAt: number | undefined } {
    return { ...this.#queue.backlog(), bytes: this.#queue.bytes };
  }

  /** Picks up files a previous process left in this node's spool, then keeps its claims alive. */
  async start(): Promise<void> {
    await this.#leases.start();
  }

  /**
   * Stops uploading. Files still in the spool stay there (with their manifest rows) for the next process;
   * `release: false` keeps this process's claims until their lease runs out, as a crash would.
   */
  async close(opts: { release?: boolean } = {}): Promise<void> {
    this.#closed = true;
    this.#leases.stop();
    await this.#queue.close();
    this.#sessions.close();
    if (opts.release !== false) await this.#leases.release();
  }

  onEvent(listener: StorageEventListener): () => void {
    return this.#sessions.onEvent(listener);
  }

  async openSession(input: OpenSessionInput): Promise<UploadSession> {
    await this.#sessions.open(input, this.#d.clock.now());
    return this.#facade(input.sid);
  }

  /** The upload session of a sid opened earlier (by this or a previous process), if any. */
  async session(sid: string): Promise<UploadSession | undefined> {
    return (await this.#sessions.load(sid)) ? this.#facade(sid) : undefined;
  }

  /** From the database, so any process (an API-only one too) answers for sessions uploaded elsewhere. */
  /** Read from the manifest, so any process sharing the database answers for files of every node's spool. */
  async uploadTotals(sid: string): Promise<UploadTotals> {
    const t = { files: 0, bytes: 0, pendingFiles: 0, pendingBytes: 0 };
    for (const f of latestPerKey(await this.#d.store.sessionFiles(sid))) {
      if (f.state === 'uploaded') {
        t.files += 1;
        t.bytes += f.bytes;
      } else if (f.state === 'pending') {
        t.pendingFiles += 1;
        t.pendingBytes += f.bytes;
      }
    }
    return t;
  }

  async uploadingStatus(sid: string): Promise<UploadingStatus> {
    if (!(await this.#d.store.session(sid))) return 'unknown';
    return (await this.#d.store.pendingCount(sid)) > 0 ? 'backuped' : 'uploaded';
  }

  #facade(sid: string): UploadSession {
    return {
      sid,
      objectKey: (fileName) => objectKey(this.#sessions.get(sid)?.storage ?? {}, fileName),
      enqueue: (localPath, key, options) => this.#enqueue(sid, localPath, key, options),
      updateStorage: async (storage) => {
        await this.#sessions.setStorage(sid, storage);
        // Files waiting out a backoff (often an expired token) are retried with the new settings now.
        this.#queue.retryNow(sid);
      },
      status: () => this.#status(sid),
      onEvent: (listener) => this.#sessions.listen(sid, listener),
      finish: () => this.#finish(sid),
    };
  }

  async #enqueue(sid: string, localPath: string, key: string, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    if (this.#closed) return { ok: false, reason: 'closed', message: 'the storage module is closed' };
    const s = await this.#sessions.load(sid);
    if (!s || s.finished) {
      return { ok: false, reason: 'finished', message: `upload session ${sid} is ${s ? 'finished' : 'not open'}` };
    }
    const taken = await this.#intake.take(sid, localPath, key, options);
    if (!taken.ok) {
      if (taken.reason === 'spool-full') {
        this.#d.log.error({ sid, key, spoolBytes: this.spoolBytes }, 'upload spool full');
        this.#sessions.emit(sid, { kind: 'spool-full', sid, fileName: key, message: taken.message });
      }
      return taken;
    }
    this.#queue.add([taken.row]);
    return { ok: true, key, bytes: taken.row.bytes };
  }

  async #attempt(row: FileRow): Promise<void> {
    // Held here, or only in the manifest: an older copy uploaded last would overwrite the newer one in the bucket.
    if (this.#queue.hasNewerCopy(row) || (await this.#d.store.hasNewerCopy(row).catch(() => false))) {
      return this.#apply(row, undefined, { kind: 'newer-copy' });
    }
    const s = await this.#sessions.load(row.sid).catch(() => undefined);
    await this.#apply(row, s, await this.#tryUpload(row, s));
  }

  async #tryUpload(row: FileRow, s: SessionState | undefined): Promise<AttemptOutcome> {
    try {
      await stat(row.spool_path);
    } catch {
      return { kind: 'file-missing' };
    }
    // Wall time, not the injected clock: a duration measured for operators, never a lifecycle timer.
    const started = performance.now();
    const destination = this.#d.config.routeAllToLocal ? 'local' : s?.storage ? String(s.storage.vendor) : 'unknown';
    const seconds = () => (performance.now() - started) / 1000;
    try {
      await this.#sessions.upload(row.sid, { key: row.key, body: { file: row.spool_path }, contentType: row.content_type, cacheControl: storedCacheControl(row.key) });
      this.#d.meter?.attempt(destination, seconds(), 'uploaded');
      return { kind: 'uploaded', at: this.#d.clock.now() };
    } catch (e) {
      const secrets = [s?.storage?.accessKey, s?.storage?.secretKey, s?.storage?.stsToken];
      const err =
        e instanceof UploadError
          ? e
          : new UploadError('transient', scrubSecrets(`upload failed: ${(e as Error)?.message ?? String(e)}`, secrets));
      this.#d.meter?.attempt(destination, seconds(), 'failed', err.kind === 'config' ? 'config' : 'transient');
      return { kind: 'failed', configError: err.kind === 'config', message: err.message, detail: err.detail };
    }
  }

  /** Writes what the attempt did to the manifest, then frees the spool file, reports, or schedules the retry. */
  async #apply(row: FileRow, s: SessionState | undefined, outcome: AttemptOutcome): Promise<void> {
    const step = fileTransition(row, outcome, this.#d.config);
    // Rows leave the queue only after the manifest says so: finish() reads the manifest once the queue is settled.
    // A manifest failure rejects the attempt; the queue reports it and the file is retried later.
    switch (step.state) {
      case 'superseded':
      case 'lost':
        if (step.state === 'lost') this.#d.log.error({ sid: row.sid, key: row.key }, 'spooled file vanished; it cannot be uploaded');
        await this.#d.store.updateFile(row.id, step.patch);
        this.#queue.remove(row.id);
        await rm(row.spool_path, { force: true });
        return;
      case 'uploaded':
        try {
          await this.#d.store.updateFile(row.id, step.patch);
        } catch (e) {
          // The object is in the bucket but the manifest still says pending: a later attempt re-uploads it (idempotent).
          this.#d.log.error({ err: e, sid: row.sid }, 'spool bookkeeping failed after upload');
          throw e;
        }
        this.#queue.remove(row.id);
        await rm(row.spool_path, { force: true }).catch(() => undefined);
        this.#sessions.uploadSucceeded(row.sid);
        this.#sessions.emit(row.sid, { kind: 'file-uploaded', sid: row.sid, fileName: row.key, bytes: Number(row.bytes), attempts: step.attempts });
        await this.#maybeComplete(row.sid);
        return;
      case 'pending':
        this.#queue.setAttempts(row.id, step.attempts);
        try {
          await this.#d.store.updateFile(row.id, step.patch);
        } catch (dbErr) {
          this.#d.log.error({ err: dbErr, sid: row.sid }, 'spool bookkeeping failed after a failed upload');
        }
        this.#reportFailure(row, s, step, outcome.kind === 'failed' ? outcome.detail : undefined);
        this.#queue.retryLater(row.id, step.retryInMs);
        return;
    }
  }

  #reportFailure(row: FileRow, s: SessionState | undefined, step: RetryStep, detail: string | undefined): void {
    const { sid, key } = row;
    const f = this.#failures.get(sid);
    this.#failures.set(sid, { failed: (f?.failed ?? 0) + 1, retryInMs: step.retryInMs, reason: step.message, detail: detail ?? f?.detail });
    if (step.firstFailure) this.#sessions.emit(sid, { kind: 'backuped', sid, fileName: key, message: step.message });
    if (step.configError && s && this.#sessions.configErrorDue(sid)) {
      const where = s.storage ? describeStorage(s.storage) : 'storage';
      this.#d.log.error({ sid, storage: where, reason: step.message }, 'storage configuration error');
      this.#sessions.emit(sid, { kind: 'storage-config-error', sid, fileName: key, message: step.message });
    }
    this.#sessions.emit(sid, {
      kind: 'upload-failed',
      sid,
      fileName: key,
      attempt: step.attempts,
      retryInMs: step.retryInMs,
      configError: step.configError,
      message: step.message,
    });
  }

  /**
   * Once no file of the session is in flight or ready (the round of attempts is over), one log line says how many
   * attempts failed, how many files wait and why: a storage that stays wrong logs one line per round, not per file.
   */
  #logFailures(sid: string): void {
    const f = this.#failures.get(sid);
    if (!f || this.#queue.busy(sid)) return;
    this.#failures.delete(sid);
    const waiting = this.#queue.rowsOf(sid).length;
    this.#d.log.warn(
      { sid, failed: f.failed, waiting, retryInMs: f.retryInMs, reason: f.reason, ...(f.detail ? { detail: f.detail } : {}) },
      'uploads failed; files kept in the spool',
    );
  }

  /** Wakes finish() callers once every file of the session was tried at least once. */
  #settle(sid: string): void {
    if (this.#sessions.waiting(sid) && this.#queue.settled(sid)) this.#sessions.wake(sid);
  }

  async #maybeComplete(sid: string): Promise<void> {
    const s = await this.#sessions.load(sid);
    if (!s?.finished || s.completed || this.#queue.rowsOf(sid).length > 0) return;
    try {
      // Files of this session may also wait in another node's spool.
      if ((await this.#d.store.pendingCount(sid)) > 0) return;
      if (!(await this.#sessions.markCompleted(sid, this.#d.clock.now()))) return;
      const files = latestPerKey(await this.#d.store.sessionFiles(sid));
      this.#sessions.emit(sid, { kind: 'uploaded', sid, files });
    } catch (e) {
      this.#d.log.error({ err: e, sid }, 'could not record the completed upload');
    }
  }

  async #status(sid: string): Promise<SessionUploadStatus> {
    const rows = await this.#d.store.sessionFiles(sid);
    const pending = rows.filter((r) => r.state === 'pending');
    const latest = latestPerKey(rows);
    const arrived = latest.filter((f) => f.state === 'uploaded').length;
    return {
      uploadingStatus: (await this.#sessions.load(sid)) ? (pending.length > 0 ? 'backuped' : 'uploaded') : 'unknown',
      pending: pending.length,
      uploaded: rows.filter((r) => r.state === 'uploaded').length,
      pendingBytes: pending.reduce((n, r) => n + Number(r.bytes), 0),
      progress: latest.length === 0 ? 10000 : Math.floor((arrived / latest.length) * 10000),
    };
  }

  async #finish(sid: string): Promise<FinishResult> {
    await this.#sessions.markFinished(sid, this.#d.clock.now());
    const settled = this.#sessions.whenSettled(sid);
    this.#settle(sid);
    await settled;
    const rows = await this.#d.store.sessionFiles(sid);
    const uploadingStatus = rows.some((r) => r.state === 'pending') ? 'backuped' : 'uploaded';
    await this.#maybeComplete(sid);
    return { uploadingStatus, files: latestPerKey(rows) };
  }
}
