/**
 * Who the recorder subscribes to (pure): `streamTypes` picks the kinds, and per kind either an allow list
 * (`subscribe*Uids`) or a deny list (`unsubscribe*Uids`), none meaning everybody. `update` replaces a kind's
 * lists when it names them.
 */
import type { MediaKind } from '../../channel/index.ts';
import { ALL_STREAMS } from '../../recording/validation/index.ts';

export interface UidFilter {
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
}

export interface Subscription {
  readonly audio: UidFilter | null;
  readonly video: UidFilter | null;
}

export interface SubscriptionInput {
  readonly streamTypes?: 0 | 1 | 2 | undefined;
  readonly subscribeAudioUids?: readonly string[] | undefined;
  readonly unsubscribeAudioUids?: readonly string[] | undefined;
  readonly subscribeVideoUids?: readonly string[] | undefined;
  readonly unsubscribeVideoUids?: readonly string[] | undefined;
}

export function createSubscription(i: SubscriptionInput): Subscription {
  const types = i.streamTypes ?? 2;
  return Object.freeze({
    audio: types === 1 ? null : Object.freeze({ include: i.subscribeAudioUids, exclude: i.unsubscribeAudioUids }),
    video: types === 0 ? null : Object.freeze({ include: i.subscribeVideoUids, exclude: i.unsubscribeVideoUids }),
  });
}

export function wants(s: Subscription, kind: MediaKind, uid: string): boolean {
  const f = s[kind];
  if (!f) return false;
  // `["#allstream#"]` names every user (docs/recording-api.md).
  if (f.include) return f.include.includes(ALL_STREAMS) || f.include.includes(uid);
  if (f.exclude) return !(f.exclude.includes(ALL_STREAMS) || f.exclude.includes(uid));
  return true;
}

/** Kinds to receive from `uid` among those it publishes. */
export function kindsFor(s: Subscription, uid: string, published: readonly MediaKind[]): MediaKind[] {
  return published.filter((k) => wants(s, k, uid));
}

export interface StreamSubscribeUpdate {
  readonly audioUidList?: { readonly subscribeAudioUids?: readonly string[]; readonly unsubscribeAudioUids?: readonly string[] } | undefined;
  readonly videoUidList?: { readonly subscribeVideoUids?: readonly string[]; readonly unsubscribeVideoUids?: readonly string[] } | undefined;
}

/** A kind not recorded (streamTypes) stays off whatever the update says. */
export function applyUpdate(s: Subscription, u: StreamSubscribeUpdate): Subscription {
  const audio =
    s.audio && u.audioUidList
      ? Object.freeze({ include: u.audioUidList.subscribeAudioUids, exclude: u.audioUidList.unsubscribeAudioUids })
      : s.audio;
  const video =
    s.video && u.videoUidList
      ? Object.freeze({ include: u.videoUidList.subscribeVideoUids, exclude: u.videoUidList.unsubscribeVideoUids })
      : s.video;
  return Object.freeze({ audio, video });
}
