/**
 * The mix recorder's options: the session's settings (built at the dispatch boundary from the start request and the
 * last updateLayout, recording/dispatch/settings) with this run's live subscription (pure; docs/recording-mix.md,
 * "The session").
 */
import type { MixLayoutSettings } from '../../media/mix/index.ts';
import type { MixSettings, RecordingTask } from '../../recording/dispatch/index.ts';
import { settingsFor } from '../../recording/index.ts';
import type { Mp4Split } from '../common/output/index.ts';
import { createSubscription, type Subscription } from '../common/follower/index.ts';

/**
 * A new MP4 starts after this much media or this many bytes, whichever comes first (the service documents
 * "about 2 hours or about 2 GB"; one later page says 3 hours: docs/recording-mix.md).
 */
export const MP4_MAX_MS = 2 * 3_600_000;
export const MP4_MAX_BYTES = 2 * 1024 ** 3;

export interface MixOptions extends Omit<MixSettings, 'subscription'> {
  readonly subscription: Subscription;
  /** Which kinds the output has at all (`streamTypes`). */
  readonly streams: { readonly audio: boolean; readonly video: boolean };
}

/** Every image URL a layout names, once each. */
export function layoutImageUrls(s: MixLayoutSettings): string[] {
  const urls = [s.backgroundImageUrl, s.defaultUserBackgroundImageUrl, ...s.userBackgrounds.map((b) => b.imageUrl)];
  return [...new Set(urls.filter((u): u is string => u !== null))];
}

export function mixOptions(task: RecordingTask): MixOptions {
  const s = settingsFor(task.settings, 'mix');
  return Object.freeze({
    ...s,
    subscription: createSubscription(s.subscription),
    streams: Object.freeze({ audio: s.subscription.audio, video: s.subscription.video }),
  });
}

/** Mix MP4s: a new file before one would pass MP4_MAX_MS or MP4_MAX_BYTES. */
export const MIX_MP4_SPLIT: Mp4Split = Object.freeze({ kind: 'before-passing', maxMs: MP4_MAX_MS, maxBytes: MP4_MAX_BYTES });
