/**
 * The individual recorder's options: the session's settings (built at the dispatch boundary from the start
 * request, recording/dispatch/settings) with this run's live subscription and `bak<n>_` generation (pure).
 */
import type { IndividualSettings, RecordingTask } from '../../recording/dispatch/index.ts';
import { settingsFor } from '../../recording/index.ts';
import { createSubscription, type Subscription } from '../common/follower/index.ts';

export type { PostProcess, StreamMode } from '../../recording/dispatch/index.ts';

export interface IndividualOptions extends Omit<IndividualSettings, 'subscription'> {
  readonly subscription: Subscription;
  /** `bak<n>_` generation of this recorder run; undefined for the first one. */
  readonly backupIndex: number | undefined;
}

/** `backupIndex`: the resumed run's `bak<n>_` index, found on disk and in the reported files (common/recovery.ts). */
export function individualOptions(task: RecordingTask, backupIndex?: number): IndividualOptions {
  const s = settingsFor(task.settings, 'individual');
  return Object.freeze({ ...s, subscription: createSubscription(s.subscription), backupIndex });
}
