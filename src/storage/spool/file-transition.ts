import { retryDelay } from './backoff.ts';
import type { FileRow } from './store.ts';

/** What one upload attempt of a pending file found. */
export type AttemptOutcome =
  /** A later copy of the same key waits in the spool: this one need not go up. */
  | { readonly kind: 'newer-copy' }
  /** The spooled file is gone, so it can never go up. */
  | { readonly kind: 'file-missing' }
  | { readonly kind: 'uploaded'; readonly at: number }
  /** `configError`: the storage settings are wrong (retrying will not help until they change). */
  | { readonly kind: 'failed'; readonly configError: boolean; readonly message: string; readonly detail?: string | undefined };

export interface RetryPolicy {
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/** The columns of a manifest row an attempt changes. */
export interface FilePatch {
  readonly state?: 'uploaded' | 'superseded' | 'lost';
  readonly attempts?: number;
  readonly uploaded_at?: number;
  readonly last_error?: string | null;
}

/**
 * Where a pending file goes after an attempt: the manifest patch, and for a file that stays pending, when it
 * is tried again and whether this was its first failure (from then on it counts as backed up).
 */
export type FileStep =
  | { readonly state: 'uploaded'; readonly patch: FilePatch; readonly attempts: number }
  | { readonly state: 'superseded'; readonly patch: FilePatch }
  | { readonly state: 'lost'; readonly patch: FilePatch }
  | {
      readonly state: 'pending';
      readonly patch: FilePatch;
      readonly attempts: number;
      readonly retryInMs: number;
      readonly firstFailure: boolean;
      readonly configError: boolean;
      readonly message: string;
    };

/**
 * The life of a manifest row: pending → uploaded | superseded | lost, or pending again with one more failed
 * attempt. Pure: the spool writes the patch and acts on the step. Only pending rows change.
 */
export function fileTransition(
  row: Pick<FileRow, 'id' | 'state' | 'attempts'>,
  outcome: AttemptOutcome,
  retry: RetryPolicy,
): FileStep {
  if (row.state !== 'pending') throw new Error(`file ${row.id} is ${row.state}; only a pending file changes state`);
  const attempts = Number(row.attempts) + 1;
  switch (outcome.kind) {
    case 'newer-copy':
      return { state: 'superseded', patch: { state: 'superseded', last_error: null } };
    case 'file-missing':
      return { state: 'lost', patch: { state: 'lost', last_error: 'spool file missing' } };
    case 'uploaded':
      return { state: 'uploaded', attempts, patch: { state: 'uploaded', attempts, uploaded_at: outcome.at, last_error: null } };
    case 'failed':
      return {
        state: 'pending',
        attempts,
        patch: { attempts, last_error: outcome.message },
        retryInMs: retryDelay(attempts, retry.retryBaseMs, retry.retryMaxMs, outcome.configError),
        firstFailure: attempts === 1,
        configError: outcome.configError,
        message: outcome.message,
      };
  }
}
