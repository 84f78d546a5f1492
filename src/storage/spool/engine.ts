import { rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { StorageConfig } from '../config.ts';
import { contentTypeFor, isSafeObjectKey, objectKey } from '../naming.ts';
import { seal, unseal } from '../seal.ts';
import { describeStorage, type StorageConfigInput } from '../storage-config.ts';
import { createUploader } from '../uploaders/factory.ts';
import { scrubSecrets, UploadError, type Uploader } from '../uploaders/types.ts';
import { fileTransition, type AttemptOutcome, type FileStep } from './file-transition.ts';
import { placeInSpool, spoolDirName, spoolFileId } from './intake.ts';
import { SpoolLeases, spoolNode } from './leases.ts';
import { UploadQueue } from './queue.ts';
import { latestPerKey, type FileRow, type SessionRow, type SpoolStore } from './store.ts';
import type {
  EnqueueOptions,
  EnqueueResult,
  FinishResult,
  OpenSessionInput,
  SessionUploadStatus,
  StorageEvent,
  StorageEventListener,
  UploadingStatus,
  UploadSession,
} from './types.ts';

export interface SpoolDeps {
  readonly store: SpoolStore;
  readonly config: StorageConfig;
  readonly clock: Clock;
  readonly log: Logger;
  /** Key that seals persisted storage configs. */
  readonly sealKey: Buffer;
  /** Tests may substitute the uploader factory. */
  readonly makeUploader?: typeof createUploader;
  /** Where this spool lives; default `<hostname>:<spoolDir>`. Only processes of one node share files. */
  readonly node?: string;
}

interface SessionState {
  readonly sid: string;
  /** Undefined when the persisted config cannot be unsealed (another deployment secret). */
  storage: StorageConfigInput | undefined;
  uploader: Uploader | undefined;
  readonly listeners: Set<StorageEventListener>;
  finished: boolean;
  completed: boolean;
  configErrorReported: boolean;
  waiters: Array<() => void>;
}

/**
 * The backup spool: every file is copied here first and deleted only after the bucket confirmed it. Failed
 * uploads are retried with backoff on the injected clock; the manifest in the database lets a restarted
 * process finish the job.
 */
export class UploadSpool {
  readonly #d: SpoolDeps;
  readonly #queue: UploadQueue;
  readonly #sessions = new Map<string, SessionState>();
  readonly #loading = new Map<string, Promise<SessionState | undefined>>();
  readonly #global = new Set<StorageEventListener>();
  /** Uploads running per uploader, so one replaced by new settings is closed only once it is idle. */
  readonly #uses = new WeakMap<Uploader, number>();
  readonly #retired = new Set<Uploader>();
  /** Bytes of files being copied into the spool, not yet held by the queue. */
  #reserved = 0;
  #counter = 0;
  #closed = false;
  readonly #leases: SpoolLeases;

  constructor(deps: SpoolDeps) {
    this.#d = deps;
    this.#queue = new UploadQueue({
      clock: deps.clock,
      concurrency: deps.config.concurrency,
      attempt: (row) => this.#attempt(row),
      onAttemptRejected: (row, e) => {
        // A bookkeeping failure (database) must never become an unhandled rejection: log, try again later.
        this.#d.log.error({ err: e, sid: row.sid }, 'upload attempt bookkeeping failed');
        this.#queue.retryLater(row.id, this.#d.config.retryMaxMs);
      },
      afterAttempt: (row) => this.#settle(row.sid),
    });
    this.#leases = new SpoolLeases({
      store: deps.store,
      clock: deps.clock,
      log: deps.log,
      leaseMs: deps.config.leaseMs,
      node: deps.node ?? spoolNode(deps.config.spoolDir),
      adopt: (rows) => this.#queue.add(rows),
      retain: (held) => this.#queue.retain(held),
    });
  }

  get spoolBytes(): number {
    return this.#queue.bytes + this.#reserved;
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
    for (const s of this.#sessions.values()) s.uploader?.close();
    for (const u of this.#retired) u.close();
    this.#retired.clear();
    if (opts.release !== false) await this.#leases.release();
  }

  onEvent(listener: StorageEventListener): () => void {
    this.#global.add(listener);
    return () => this.#global.delete(listener);
  }

  async openSession(input: OpenSessionInput): Promise<UploadSession> {
    const now = this.#d.clock.now();
    await this.#d.store.upsertSession({
      sid: input.sid,
      app_id: input.appId,
      cname: input.cname,
      uid: input.uid,
      storage: seal(JSON.stringify(input.storage), this.#d.sealKey),
      created_at: now,
      finished_at: null,
      completed_at: null,
    });
    const existing = this.#sessions.get(input.sid);
    if (existing) {
      this.#retire(existing);
      existing.storage = input.storage;
      existing.finished = false;
      existing.completed = false;
    } else {
      this.#sessions.set(input.sid, this.#newState(input.sid, input.storage));
    }
    return this.#facade(input.sid);
  }

  /** The upload session of a sid opened earlier (by this or a previous process), if any. */
  async session(sid: string): Promise<UploadSession | undefined> {
    return (await this.#state(sid)) ? this.#facade(sid) : undefined;
  }

  /** From the database, so any process (an API-only one too) answers for sessions uploaded elsewhere. */
  async uploadingStatus(sid: string): Promise<UploadingStatus> {
    if (!(await this.#d.store.session(sid))) return 'unknown';
    return (await this.#d.store.pendingCount(sid)) > 0 ? 'backuped' : 'uploaded';
  }

  /** Drops a session's uploader (new settings); it is closed now, or when its running uploads end. */
  #retire(s: SessionState): void {
    const u = s.uploader;
    s.uploader = undefined;
    if (!u) return;
    if ((this.#uses.get(u) ?? 0) === 0) u.close();
    else this.#retired.add(u);
  }

  #newState(sid: string, storage: StorageConfigInput | undefined): SessionState {
    return {
      sid,
      storage,
      uploader: undefined,
      listeners: new Set(),
      finished: false,
      completed: false,
      configErrorReported: false,
      waiters: [],
    };
  }

  async #state(sid: string): Promise<SessionState | undefined> {
    const s = this.#sessions.get(sid);
    if (s) return s;
    let p = this.#loading.get(sid);
    if (!p) {
      p = this.#d.store.session(sid).then((row: SessionRow | undefined) => {
        if (!row) return undefined;
        const plain = unseal(row.storage, this.#d.sealKey);
        const st = this.#sessions.get(sid) ?? this.#newState(sid, plain ? (JSON.parse(plain) as StorageConfigInput) : undefined);
        st.finished = row.finished_at !== null;
        st.completed = row.completed_at !== null;
        this.#sessions.set(sid, st);
        return st;
      });
      this.#loading.set(sid, p);
      void p.finally(() => this.#loading.delete(sid));
    }
    return p;
  }

  #facade(sid: string): UploadSession {
    return {
      sid,
      objectKey: (fileName) => objectKey(this.#sessions.get(sid)?.storage ?? {}, fileName),
      enqueue: (localPath, key, options) => this.#enqueue(sid, localPath, key, options),
      updateStorage: (storage) => this.#updateStorage(sid, storage),
      status: () => this.#status(sid),
      onEvent: (listener) => {
        const s = this.#sessions.get(sid);
        s?.listeners.add(listener);
        return () => s?.listeners.delete(listener);
      },
      finish: () => this.#finish(sid),
    };
  }

  #emit(sid: string, event: StorageEvent): void {
    const s = this.#sessions.get(sid);
    for (const l of [...(s?.listeners ?? []), ...this.#global]) {
      try {
        l(event);
      } catch (e) {
        this.#d.log.error({ err: e, sid }, 'storage event listener failed');
      }
    }
  }

  async #enqueue(sid: string, localPath: string, key: string, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    if (this.#closed) return { ok: false, reason: 'closed', message: 'the storage module is closed' };
    const s = await this.#state(sid);
    if (!s || s.finished) {
      return { ok: false, reason: 'finished', message: `upload session ${sid} is ${s ? 'finished' : 'not open'}` };
    }
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
    const { spoolMaxBytes } = this.#d.config;
    if (this.spoolBytes + bytes > spoolMaxBytes) return this.#spoolFull(sid, key, bytes);
    this.#reserved += bytes; // before the copy so parallel enqueues cannot overshoot
    const now = this.#d.clock.now();
    const id = spoolFileId(now, this.#counter++);
    const spoolPath = join(this.#d.config.spoolDir, spoolDirName(sid), `${id}${extname(key)}`);
    try {
      await placeInSpool(localPath, spoolPath, options.move === true);
    } catch (e) {
      this.#reserved -= bytes;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC') return this.#spoolFull(sid, key, bytes, 'the disk holding the spool is full');
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
      ...this.#leases.claimNew(now),
    };
    try {
      await this.#d.store.insertFile(row);
    } catch (e) {
      await rm(spoolPath, { force: true });
      throw e;
    } finally {
      this.#reserved -= bytes;
    }
    this.#queue.add([row]);
    return { ok: true, key, bytes };
  }

  #spoolFull(sid: string, key: string, bytes: number, why?: string): EnqueueResult {
    const message =
      why ??
      `the upload spool is full: ${this.spoolBytes} of ${this.#d.config.spoolMaxBytes} bytes used, ${bytes} more refused`;
    this.#d.log.error({ sid, key, spoolBytes: this.spoolBytes }, 'upload spool full');
    this.#emit(sid, { kind: 'spool-full', sid, fileName: key, message });
    return { ok: false, reason: 'spool-full', message };
  }

  async #attempt(row: FileRow): Promise<void> {
    if (this.#queue.hasNewerCopy(row)) return this.#apply(row, undefined, { kind: 'newer-copy' });
    const s = await this.#state(row.sid).catch(() => undefined);
    await this.#apply(row, s, await this.#tryUpload(row, s));
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
        if (s) s.configErrorReported = false;
        this.#emit(row.sid, { kind: 'file-uploaded', sid: row.sid, fileName: row.key, bytes: Number(row.bytes), attempts: step.attempts });
        await this.#maybeComplete(row.sid);
        return;
      case 'pending':
        this.#queue.setAttempts(row.id, step.attempts);
        try {
          await this.#d.store.updateFile(row.id, step.patch);
        } catch (dbErr) {
          this.#d.log.error({ err: dbErr, sid: row.sid }, 'spool bookkeeping failed after a failed upload');
        }
        this.#reportFailure(row, s, step);
        this.#queue.retryLater(row.id, step.retryInMs);
        return;
    }
  }

  async #tryUpload(row: FileRow, s: SessionState | undefined): Promise<AttemptOutcome> {
    try {
      await stat(row.spool_path);
    } catch {
      return { kind: 'file-missing' };
    }
    try {
      if (!s?.storage) {
        throw new UploadError('config', 'the stored storage settings of this session cannot be read (deployment secret changed?)');
      }
      if (!s.uploader) s.uploader = (this.#d.makeUploader ?? createUploader)(s.storage, this.#d.config, () => this.#d.clock.now());
      const uploader = s.uploader;
      this.#uses.set(uploader, (this.#uses.get(uploader) ?? 0) + 1);
      try {
        await uploader.put({ key: row.key, body: { file: row.spool_path }, contentType: row.content_type });
      } finally {
        const left = (this.#uses.get(uploader) ?? 1) - 1;
        this.#uses.set(uploader, left);
        if (left === 0 && this.#retired.delete(uploader)) uploader.close();
      }
      return { kind: 'uploaded', at: this.#d.clock.now() };
    } catch (e) {
      const secrets = [s?.storage?.accessKey, s?.storage?.secretKey, s?.storage?.stsToken];
      const err =
        e instanceof UploadError
          ? e
          : new UploadError('transient', scrubSecrets(`upload failed: ${(e as Error)?.message ?? String(e)}`, secrets));
      return { kind: 'failed', configError: err.kind === 'config', message: err.message };
    }
  }

  #reportFailure(row: FileRow, s: SessionState | undefined, step: Extract<FileStep, { state: 'pending' }>): void {
    this.#d.log.warn(
      { sid: row.sid, key: row.key, attempt: step.attempts, retryInMs: step.retryInMs, reason: step.message },
      'upload failed; kept in the spool',
    );
    if (step.firstFailure) this.#emit(row.sid, { kind: 'backuped', sid: row.sid, fileName: row.key, message: step.message });
    if (step.configError && s && !s.configErrorReported) {
      s.configErrorReported = true;
      const where = s.storage ? describeStorage(s.storage) : 'storage';
      this.#d.log.error({ sid: row.sid, storage: where, reason: step.message }, 'storage configuration error');
      this.#emit(row.sid, { kind: 'storage-config-error', sid: row.sid, fileName: row.key, message: step.message });
    }
    this.#emit(row.sid, {
      kind: 'upload-failed',
      sid: row.sid,
      fileName: row.key,
      attempt: step.attempts,
      retryInMs: step.retryInMs,
      configError: step.configError,
      message: step.message,
    });
  }

  /** Wakes finish() callers once every file of the session was tried at least once. */
  #settle(sid: string): void {
    const s = this.#sessions.get(sid);
    if (!s || s.waiters.length === 0) return;
    if (!this.#queue.settled(sid)) return;
    const w = s.waiters;
    s.waiters = [];
    for (const f of w) f();
  }

  async #maybeComplete(sid: string): Promise<void> {
    const s = this.#sessions.get(sid) ?? (await this.#state(sid));
    if (!s || !s.finished || s.completed || this.#queue.rowsOf(sid).length > 0) return;
    try {
      // Files of this session may also wait in another node's spool.
      if ((await this.#d.store.pendingCount(sid)) > 0) return;
      if (s.completed) return;
      s.completed = true;
      await this.#d.store.markCompleted(sid, this.#d.clock.now());
      const files = latestPerKey(await this.#d.store.sessionFiles(sid));
      this.#emit(sid, { kind: 'uploaded', sid, files });
    } catch (e) {
      this.#d.log.error({ err: e, sid }, 'could not record the completed upload');
    }
  }

  async #updateStorage(sid: string, storage: StorageConfigInput): Promise<void> {
    const s = await this.#state(sid);
    if (!s) throw new Error(`upload session ${sid} is not open`);
    await this.#d.store.setSessionStorage(sid, seal(JSON.stringify(storage), this.#d.sealKey));
    this.#retire(s);
    s.storage = storage;
    s.configErrorReported = false;
    // Files waiting out a backoff (often an expired token) are retried with the new settings now.
    this.#queue.retryNow(sid);
  }

  async #status(sid: string): Promise<SessionUploadStatus> {
    const rows = await this.#d.store.sessionFiles(sid);
    const pending = rows.filter((r) => r.state === 'pending');
    const latest = latestPerKey(rows);
    const arrived = latest.filter((f) => f.state === 'uploaded').length;
    return {
      uploadingStatus: (await this.#state(sid)) ? (pending.length > 0 ? 'backuped' : 'uploaded') : 'unknown',
      pending: pending.length,
      uploaded: rows.filter((r) => r.state === 'uploaded').length,
      pendingBytes: pending.reduce((n, r) => n + Number(r.bytes), 0),
      progress: latest.length === 0 ? 10000 : Math.floor((arrived / latest.length) * 10000),
    };
  }

  async #finish(sid: string): Promise<FinishResult> {
    const s = await this.#state(sid);
    if (!s) throw new Error(`upload session ${sid} is not open`);
    if (!s.finished) {
      s.finished = true;
      await this.#d.store.markFinished(sid, this.#d.clock.now());
    }
    await new Promise<void>((resolve) => {
      s.waiters.push(resolve);
      this.#settle(sid);
    });
    const rows = await this.#d.store.sessionFiles(sid);
    const uploadingStatus = rows.some((r) => r.state === 'pending') ? 'backuped' : 'uploaded';
    await this.#maybeComplete(sid);
    return { uploadingStatus, files: latestPerKey(rows) };
  }
}
