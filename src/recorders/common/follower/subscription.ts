/**
 * Whom a recorder subscribes to, per kind (pure). A kind outside `streamTypes` is off for the whole session.
 * A start that gives lists for one kind only records nothing of the other kind (docs/recording-individual.md,
 * "Subscription"); an update replaces the list of each kind it names.
 */
import type { MediaKind } from '../../../channel/index.ts';
import type { SubscriptionRequest, UidLists, UidSelection } from '../../../recording/dispatch/index.ts';

export interface Subscription {
  /** null: the kind is not recorded at all (streamTypes). */
  readonly audio: UidSelection | null;
  readonly video: UidSelection | null;
}

export const EVERYONE: UidSelection = Object.freeze({ kind: 'everyone' });
export const NOBODY: UidSelection = Object.freeze({ kind: 'only', uids: Object.freeze([]) });

export function createSubscription(req: SubscriptionRequest): Subscription {
  const { audio, video } = req.lists;
  // With a list for one kind only, the other kind is not subscribed.
  const unlisted = audio || video ? NOBODY : EVERYONE;
  return Object.freeze({
    audio: req.audio ? (audio ?? unlisted) : null,
    video: req.video ? (video ?? unlisted) : null,
  });
}

/** A kind not recorded stays off whatever the update says. */
export function applyLists(s: Subscription, lists: UidLists): Subscription {
  return Object.freeze({
    audio: s.audio && lists.audio ? lists.audio : s.audio,
    video: s.video && lists.video ? lists.video : s.video,
  });
}

export function selects(sel: UidSelection, uid: string): boolean {
  if (sel.kind === 'everyone') return true;
  return sel.kind === 'only' ? sel.uids.includes(uid) : !sel.uids.includes(uid);
}

export function wants(s: Subscription, kind: MediaKind, uid: string): boolean {
  const sel = s[kind];
  return sel !== null && selects(sel, uid);
}

/** Kinds to receive from `uid` among those it publishes. */
export function kindsFor(s: Subscription, uid: string, published: readonly MediaKind[]): MediaKind[] {
  return published.filter((k) => wants(s, k, uid));
}
