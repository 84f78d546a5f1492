import type { Logger } from '../../log/index.ts';
import { seal, unseal } from '../seal.ts';
import type { StorageConfig } from '../storage-config.ts';
import { UploadError, type PutRequest, type Uploader } from '../uploaders/index.ts';
import type { SessionRow, SpoolStore } from './store.ts';
import type { OpenSessionInput, StorageEvent, StorageEventListener } from './types.ts';
import { UploaderPool } from './uploader-pool.ts';

/** What this process knows of one upload session. */
export interface SessionState {
  readonly sid: string;
  /** Undefined when the persisted config cannot be unsealed (another deployment secret). */
  readonly storage: StorageConfig | undefined;
  readonly finished: boolean;
  readonly completed: boolean;
}

interface Entry {
  readonly sid: string;
  storage: StorageConfig | undefined;
  finished: boolean;
  completed: boolean;
  /** A storage-config-error was reported since the settings last changed or an upload last succeeded. */
  configErrorReported: boolean;
  readonly listeners: Set<StorageEventListener>;
  /** finish() callers waiting until every file of the session was tried once. */
  waiters: Array<() => void>;
}

export interface UploadSessionsDeps {
  readonly store: Pick<SpoolStore, 'upsertSession' | 'session' | 'setSessionStorage' | 'markFinished' | 'markCompleted'>;
  readonly log: Logger;
  /** Key that seals persisted storage configs. */
  readonly sealKey: Buffer;
  readonly makeUploader: (storage: StorageConfig) => Uploader;
}

/**
 * The upload sessions this process has opened or loaded: their storage settings (persisted sealed, so another
 * process can finish the uploads), finish and completion marks, event listeners, and an uploader each.
 */
export class UploadSessions {
  readonly #d: UploadSessionsDeps;
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<Entry | undefined>>();
  readonly #global = new Set<StorageEventListener>();
  readonly #uploaders: UploaderPool;

  constructor(deps: UploadSessionsDeps) {
    this.#d = deps;
    this.#uploaders = new UploaderPool(deps.makeUploader);
  }

  /** Opens or re-opens a session: its settings are replaced and it accepts files again. */
  async open(input: OpenSessionInput, now: number): Promise<SessionState> {
    await this.#d.store.upsertSession({
      sid: input.sid,
      app_id: input.appId,
      cname: input.cname,
      uid: input.uid,
      storage: this.#seal(input.storage),
      created_at: now,
      finished_at: null,
      completed_at: null,
    });
    const existing = this.#entries.get(input.sid);
    if (!existing) {
      const entry = newEntry(input.sid, input.storage);
      this.#entries.set(input.sid, entry);
      return entry;
    }
    this.#uploaders.retire(input.sid);
    existing.storage = input.storage;
    existing.finished = false;
    existing.completed = false;
    return existing;
  }

  /** A session already in memory. */
  get(sid: string): SessionState | undefined {
    return this.#entries.get(sid);
  }

  /** A session in memory, or loaded from the manifest (opened by an earlier process); undefined if unknown. */
  async load(sid: string): Promise<SessionState | undefined> {
    const entry = this.#entries.get(sid);
    if (entry) return entry;
    let p = this.#loading.get(sid);
    if (!p) {
      p = this.#d.store.session(sid).then((row: SessionRow | undefined) => {
        if (!row) return undefined;
        const plain = unseal(row.storage, this.#d.sealKey);
        const e = this.#entries.get(sid) ?? newEntry(sid, plain ? (JSON.parse(plain) as StorageConfig) : undefined);
        e.finished = row.finished_at !== null;
        e.completed = row.completed_at !== null;
        this.#entries.set(sid, e);
        return e;
      });
      this.#loading.set(sid, p);
      void p.finally(() => this.#loading.delete(sid));
    }
    return p;
  }

  /** New settings (e.g. a fresh stsToken): persisted, and the next upload uses a new uploader. */
  async setStorage(sid: string, storage: StorageConfig): Promise<void> {
    const e = await this.#entry(sid);
    await this.#d.store.setSessionStorage(sid, this.#seal(storage));
    this.#uploaders.retire(sid);
    e.storage = storage;
    e.configErrorReported = false;
  }

  /** No more files for the session. */
  async markFinished(sid: string, now: number): Promise<void> {
    const e = await this.#entry(sid);
    if (e.finished) return;
    e.finished = true;
    await this.#d.store.markFinished(sid, now);
  }

  /** Every file arrived; false when it was already marked (by a concurrent call). */
  async markCompleted(sid: string, now: number): Promise<boolean> {
    const e = this.#entries.get(sid);
    if (!e || e.completed) return false;
    e.completed = true;
    await this.#d.store.markCompleted(sid, now);
    return true;
  }

  /** Puts one object of a loaded session with its uploader. */
  async upload(sid: string, req: PutRequest): Promise<void> {
    const storage = this.#entries.get(sid)?.storage;
    if (!storage) {
      throw new UploadError('config', 'the stored storage settings of this session cannot be read (deployment secret changed?)');
    }
    await this.#uploaders.put(sid, storage, req);
  }

  /** Whether a storage-config-error is due: once per session until its settings change or an upload succeeds. */
  configErrorDue(sid: string): boolean {
    const e = this.#entries.get(sid);
    if (!e || e.configErrorReported) return false;
    e.configErrorReported = true;
    return true;
  }

  uploadSucceeded(sid: string): void {
    const e = this.#entries.get(sid);
    if (e) e.configErrorReported = false;
  }

  onEvent(listener: StorageEventListener): () => void {
    this.#global.add(listener);
    return () => this.#global.delete(listener);
  }

  listen(sid: string, listener: StorageEventListener): () => void {
    const e = this.#entries.get(sid);
    e?.listeners.add(listener);
    return () => e?.listeners.delete(listener);
  }

  /** To the session's listeners, then to the global ones; a listener that throws is logged and skipped. */
  emit(sid: string, event: StorageEvent): void {
    const e = this.#entries.get(sid);
    for (const l of [...(e?.listeners ?? []), ...this.#global]) {
      try {
        l(event);
      } catch (err) {
        this.#d.log.error({ err, sid }, 'storage event listener failed');
      }
    }
  }

  /** Resolves at the next wake(sid); at once for a session not in memory. */
  whenSettled(sid: string): Promise<void> {
    const e = this.#entries.get(sid);
    return e ? new Promise((resolve) => e.waiters.push(resolve)) : Promise.resolve();
  }

  waiting(sid: string): boolean {
    return (this.#entries.get(sid)?.waiters.length ?? 0) > 0;
  }

  wake(sid: string): void {
    const e = this.#entries.get(sid);
    if (!e) return;
    const w = e.waiters;
    e.waiters = [];
    for (const f of w) f();
  }

  /** Closes every uploader (call once no upload runs). */
  close(): void {
    this.#uploaders.close();
  }

  async #entry(sid: string): Promise<Entry> {
    if (!(await this.load(sid))) throw new Error(`upload session ${sid} is not open`);
    return this.#entries.get(sid)!;
  }

  #seal(storage: StorageConfig): string {
    return seal(JSON.stringify(storage), this.#d.sealKey);
  }
}

function newEntry(sid: string, storage: StorageConfig | undefined): Entry {
  return { sid, storage, finished: false, completed: false, configErrorReported: false, listeners: new Set(), waiters: [] };
}
