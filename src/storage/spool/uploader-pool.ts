import type { StorageConfig } from '../storage-config.ts';
import type { PutRequest, Uploader } from '../uploaders/index.ts';

/**
 * One uploader per session, made on first use from the session's storage settings. New settings retire it:
 * a retired uploader is closed once its running uploads end, never under them.
 */
export class UploaderPool {
  readonly #create: (storage: StorageConfig) => Uploader;
  readonly #current = new Map<string, Uploader>();
  /** Uploads running per uploader. */
  readonly #uses = new Map<Uploader, number>();
  readonly #retired = new Set<Uploader>();

  constructor(create: (storage: StorageConfig) => Uploader) {
    this.#create = create;
  }

  /** Puts one object with the session's uploader. Throws what the uploader throws (UploadError). */
  async put(sid: string, storage: StorageConfig, req: PutRequest): Promise<void> {
    let uploader = this.#current.get(sid);
    if (!uploader) {
      uploader = this.#create(storage);
      this.#current.set(sid, uploader);
    }
    this.#uses.set(uploader, (this.#uses.get(uploader) ?? 0) + 1);
    try {
      await uploader.put(req);
    } finally {
      const left = (this.#uses.get(uploader) ?? 1) - 1;
      if (left > 0) this.#uses.set(uploader, left);
      else {
        this.#uses.delete(uploader);
        if (this.#retired.delete(uploader)) uploader.close();
      }
    }
  }

  /** The session's settings changed: its next upload gets a new uploader. */
  retire(sid: string): void {
    const uploader = this.#current.get(sid);
    if (!uploader) return;
    this.#current.delete(sid);
    if (this.#uses.has(uploader)) this.#retired.add(uploader);
    else uploader.close();
  }

  /** Closes every uploader (call once no upload runs). */
  close(): void {
    for (const u of [...this.#current.values(), ...this.#retired]) u.close();
    this.#current.clear();
    this.#retired.clear();
  }
}
