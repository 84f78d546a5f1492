import type { StorageConfig } from '../storage-config.ts';

/** The recording API's `uploadingStatus`. */
export type UploadingStatus = 'uploaded' | 'backuped' | 'unknown';

export interface OpenSessionInput {
  readonly sid: string;
  readonly appId: string;
  readonly cname: string;
  /** The recording bot uid. */
  readonly uid: string;
  /** The validated storageConfig of the start request (see validateStorageConfig). */
  readonly storage: StorageConfig;
}

/** One file of a session as the spool knows it. */
export interface SpooledFile {
  /** Object key in the bucket (fileNamePrefix applied). */
  readonly key: string;
  readonly bytes: number;
  readonly state: 'pending' | 'uploaded' | 'superseded' | 'lost';
  readonly attempts: number;
  readonly enqueuedAt: number;
  readonly uploadedAt: number | undefined;
}

/**
 * What the storage reports about a session's uploads; the recorder turns these into webhook events (uploader
 * events 31–33 and codes, see docs/storage.md "Events → webhooks") and query fields. `fileName` is the object key
 * (prefix included), as in the webhooks' fileList and snapshot events. Messages never contain secrets.
 */
export type StorageEvent =
  /** A file is in the bucket. */
  | { readonly kind: 'file-uploaded'; readonly sid: string; readonly fileName: string; readonly bytes: number; readonly attempts: number }
  /** One attempt failed; the file stays in the spool and is retried in `retryInMs` (uploader warning 31). */
  | {
      readonly kind: 'upload-failed';
      readonly sid: string;
      readonly fileName: string;
      readonly attempt: number;
      readonly retryInMs: number;
      readonly configError: boolean;
      readonly message: string;
    }
  /** First failure of a file: from now on it counts as backed up in the local spool (uploader warning 32). */
  | { readonly kind: 'backuped'; readonly sid: string; readonly fileName: string; readonly message: string }
  /** Wrong credentials, missing bucket, expired STS token (uploader error 32); files are kept and retried. */
  | { readonly kind: 'storage-config-error'; readonly sid: string; readonly fileName: string; readonly message: string }
  /** The spool is full: this file was refused (nothing already spooled is deleted). */
  | { readonly kind: 'spool-full'; readonly sid: string; readonly fileName: string; readonly message: string }
  /** The session is finished and every file has arrived in the bucket (event 31 `uploaded`). */
  | { readonly kind: 'uploaded'; readonly sid: string; readonly files: readonly SpooledFile[] };

export type StorageEventListener = (event: StorageEvent) => void;

export type EnqueueResult =
  | { readonly ok: true; readonly key: string; readonly bytes: number }
  | {
      readonly ok: false;
      readonly reason: 'spool-full' | 'invalid-key' | 'unreadable' | 'finished' | 'closed';
      readonly message: string;
    };

export interface EnqueueOptions {
  /** Default: from the key's extension (contentTypeFor). */
  readonly contentType?: string;
  /** Move the file into the spool instead of copying it (it must be complete and no longer written). */
  readonly move?: boolean;
  /**
   * Asked again before each retry of a manifest insert the database refused (it is away for a while); false gives
   * up, leaving the file where it was. Default: always wanted.
   */
  readonly stillWanted?: () => boolean;
}

export interface SessionUploadStatus {
  readonly uploadingStatus: UploadingStatus;
  readonly pending: number;
  readonly uploaded: number;
  readonly pendingBytes: number;
  /** Files in the bucket per files recorded (latest copy per key) × 10000: `uploading_progress` (event 33). */
  readonly progress: number;
}

/** What a session has put in the bucket so far, and what still waits (latest copy per object key). */
export interface UploadTotals {
  readonly files: number;
  readonly bytes: number;
  readonly pendingFiles: number;
  readonly pendingBytes: number;
}

export interface FinishResult {
  /** `uploaded` when every file is in the bucket, `backuped` while any is still in the spool (retried). */
  readonly uploadingStatus: 'uploaded' | 'backuped';
  /** Files of the session, latest copy per key, in enqueue order. */
  readonly files: readonly SpooledFile[];
}

/** The upload side of one recording session. */
export interface UploadSession {
  readonly sid: string;
  /** `fileNamePrefix` joined with "/" in front of the file name. */
  objectKey(fileName: string): string;
  /**
   * Copies (or moves) a closed file into the spool and schedules its upload under `key`. Enqueueing the same
   * key again (a growing playlist) uploads the newest copy; an older copy not yet uploaded is skipped.
   * Resolves once the file is safely in the spool; refusals are results, never exceptions.
   */
  enqueue(localPath: string, key: string, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** Replaces the storage settings (e.g. a new stsToken from update); failed files are retried at once. */
  updateStorage(storage: StorageConfig): Promise<void>;
  status(): Promise<SessionUploadStatus>;
  /** Listens to this session's events; returns the unsubscribe function. */
  onEvent(listener: StorageEventListener): () => void;
  /**
   * No more files. Resolves when every file has been uploaded or has failed at least once (then it is
   * `backuped` and retried in the background until it arrives, which emits `uploaded`).
   */
  finish(): Promise<FinishResult>;
}
