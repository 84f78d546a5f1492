import type { Readable } from 'node:stream';

/** What to upload: a file on disk, bytes, or a stream (size optional). */
export type UploadBody =
  | { readonly file: string }
  | { readonly data: Uint8Array }
  | { readonly stream: Readable; readonly size?: number };

export interface PutRequest {
  readonly key: string;
  readonly body: UploadBody;
  readonly contentType: string;
  /** Stored as the object's `Cache-Control` where the store keeps one (S3, Azure): storedCacheControl. */
  readonly cacheControl?: string;
}

export interface ObjectInfo {
  readonly key: string;
  readonly size: number;
  /** Known from head(); list() may leave it out. */
  readonly contentType?: string;
  /** From head(), where the store keeps one. */
  readonly cacheControl?: string;
}

/**
 * One bucket behind one API. Tags, encryption and credentials belong to the uploader (they come from the
 * session's storageConfig), so every put of a session gets them.
 */
export interface Uploader {
  readonly kind: 'local' | 's3' | 'azure';
  /** Where files go, without secrets (for logs and messages). */
  readonly description: string;
  /** Stores the object; large bodies go up in parts. Throws UploadError. */
  put(req: PutRequest): Promise<void>;
  head(key: string): Promise<ObjectInfo | undefined>;
  /** The object's bytes (tests, tools; recordings are never read back in the upload path). */
  get(key: string): Promise<Buffer | undefined>;
  list(prefix?: string): Promise<ObjectInfo[]>;
  delete(key: string): Promise<void>;
  /**
   * A link that reads the object without credentials until `expiresAtMs` (an S3 presigned GET, an Azure SAS), made
   * here with no request sent; undefined for the local bucket, whose links the storage module signs itself.
   */
  readUrl(key: string, expiresAtMs: number): Promise<string | undefined>;
  close(): void;
}

/**
 * An upload failure. `config` means the customer's storage settings are wrong (credentials, bucket, expired STS
 * token): retrying will not help until they change. `transient` is anything else (network, 5xx, timeouts).
 * Messages never contain storage secrets.
 */
export class UploadError extends Error {
  override readonly name = 'UploadError';
  constructor(
    readonly kind: 'config' | 'transient',
    message: string,
    readonly code?: string,
    /** The low-level cause (e.g. ECONNREFUSED), for the operator's log only: never shown to customers. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** Removes every occurrence of the given secrets from a message that may have come from a server. */
export function scrubSecrets(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const s of secrets) if (s && s.length >= 3) out = out.split(s).join('[redacted]');
  return out;
}
