/**
 * What a recorder should do after any change of the channel or of its subscription lists (pure): whom to
 * subscribe to (and with which kinds), whom to drop, which running streams to end, whether the channel counts as
 * idle, and whether to warn that the channel's profile is not the task's `channelType`.
 */
import type { ChannelSnapshot, MediaKind, Profile } from '../../../channel/index.ts';
import { kindsFor, wants, type Subscription } from './subscription.ts';

export interface Membership {
  readonly profile: ChannelSnapshot['profile'];
  readonly participants: ChannelSnapshot['participants'];
  /** The recorder's own uid: never recorded, never counts as a broadcaster. */
  readonly selfUid: number;
}

export interface TrackRef {
  readonly uid: string;
  readonly kind: MediaKind;
}

export interface CurrentSubscriptions {
  /** Users subscribed (or being subscribed) and the kinds asked for. */
  readonly links: ReadonlyMap<string, readonly MediaKind[]>;
  /** Tracks whose stream is being recorded now. */
  readonly streams: readonly TrackRef[];
  readonly profileWarned: boolean;
}

export interface SubscriptionPlan {
  readonly connect: readonly { readonly uid: string; readonly kinds: readonly MediaKind[] }[];
  /** Users to unsubscribe (their streams end with them); a user whose kinds changed is dropped and connected again. */
  readonly drop: readonly string[];
  /** Streams of users still subscribed whose kind the lists no longer select. */
  readonly endStreams: readonly TrackRef[];
  /** Nobody to record: nobody else in the channel (communication), no host (live), or the wrong profile. */
  readonly idle: boolean;
  /** Set when the profile mismatch is to be reported now (once per session). */
  readonly profileWarning: string | undefined;
}

export function planSubscriptions(m: Membership, subscription: Subscription, profile: Profile, current: CurrentSubscriptions): SubscriptionPlan {
  const profileOk = m.profile === undefined || m.profile === profile;
  const others = m.participants.filter((p) => p.uid !== m.selfUid);
  const broadcasters = profile === 'live' ? others.filter((p) => p.role === 'host') : others;
  const desired = new Map<string, MediaKind[]>();
  if (profileOk) {
    for (const p of others) {
      const uid = String(p.uid);
      const recordable = [...new Set(p.tracks.map((t) => t.kind))].filter((k) => subscription[k] !== null);
      // All recordable kinds are received, so an update selecting another kind needs no new subscription.
      if (kindsFor(subscription, uid, recordable).length > 0) desired.set(uid, recordable);
    }
  }
  const drop = [...current.links].filter(([uid, kinds]) => desired.get(uid)?.join() !== kinds.join()).map(([uid]) => uid);
  const connect = [...desired].filter(([uid]) => !current.links.has(uid) || drop.includes(uid)).map(([uid, kinds]) => ({ uid, kinds }));
  const endStreams = current.streams.filter((t) => !drop.includes(t.uid) && !wants(subscription, t.kind, t.uid));
  return {
    connect,
    drop,
    endStreams,
    idle: broadcasters.length === 0 || !profileOk,
    profileWarning:
      !profileOk && !current.profileWarned ? `channel profile is ${m.profile} but channelType asks for ${profile}: nothing is recorded` : undefined,
  };
}
