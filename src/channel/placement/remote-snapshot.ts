/**
 * A channel's membership as seen from another process, kept from the owner node's event stream (pure): events
 * applied to a snapshot, and the events that turn one snapshot into another (a stream that reconnects starts with
 * a snapshot; a lost owner is the empty one).
 */
import type { ChannelEvent, ChannelSnapshot, ParticipantSnapshot, Profile, TrackInfo } from '../membership/index.ts';

export function emptySnapshot(appId: string, cname: string): ChannelSnapshot {
  return { appId, cname, profile: undefined, participants: [] };
}

const sameKinds = (a: readonly TrackInfo[], b: readonly TrackInfo[]) =>
  a.length === b.length && a.every((t) => b.some((u) => u.kind === t.kind && u.codec === t.codec));

function withParticipants(s: ChannelSnapshot, participants: readonly ParticipantSnapshot[], profile: Profile | undefined): ChannelSnapshot {
  return { appId: s.appId, cname: s.cname, profile: participants.length > 0 ? profile : undefined, participants };
}

/**
 * The snapshot after one event of the owner's stream. Applying an event already reflected (a snapshot fetched after
 * it) changes nothing. `profile` is the channel's profile the owner sent with the event.
 */
export function applyChannelEvent(s: ChannelSnapshot, e: ChannelEvent, profile: Profile | undefined): ChannelSnapshot {
  const others = s.participants.filter((p) => p.uid !== e.uid);
  const current = s.participants.find((p) => p.uid === e.uid);
  const base: ParticipantSnapshot = current ?? { uid: e.uid, role: e.role, joinedAt: e.time, tracks: [], subscribedTo: [] };
  const keep = profile ?? s.profile;
  switch (e.kind) {
    case 'join':
      return withParticipants(s, current ? s.participants : [...others, { ...base, role: e.role }], keep);
    case 'leave':
      return withParticipants(s, others, keep);
    case 'publish': {
      const tracks = [...base.tracks.filter((t) => !e.tracks.some((n) => n.kind === t.kind)), ...e.tracks];
      return withParticipants(s, [...others, { ...base, role: e.role, tracks }], keep);
    }
    case 'unpublish': {
      if (!current) return s;
      const tracks = current.tracks.filter((t) => !e.tracks.some((n) => n.kind === t.kind));
      return withParticipants(s, [...others, { ...current, tracks }], keep);
    }
  }
}

/**
 * The events that take a follower from `before` to `after` (time `now`): leaves (with their unpublish first) for
 * those gone, joins and publishes for those new, and track changes of those in both. `seq` is 0: not the owner's.
 */
export function snapshotChanges(before: ChannelSnapshot, after: ChannelSnapshot, now: number): ChannelEvent[] {
  const out: ChannelEvent[] = [];
  const ev = (kind: ChannelEvent['kind'], p: ParticipantSnapshot, tracks: readonly TrackInfo[], gone = false): ChannelEvent => ({
    kind,
    seq: 0,
    appId: after.appId,
    cname: after.cname,
    uid: p.uid,
    role: p.role,
    time: now,
    tracks,
    ...(gone ? { reason: 'connection_failed' as const } : {}),
  });
  for (const p of before.participants) {
    const next = after.participants.find((q) => q.uid === p.uid);
    if (!next) {
      if (p.tracks.length > 0) out.push(ev('unpublish', p, p.tracks, true));
      out.push(ev('leave', p, [], true));
    } else if (!sameKinds(p.tracks, next.tracks)) {
      const dropped = p.tracks.filter((t) => !next.tracks.some((n) => n.kind === t.kind && n.codec === t.codec));
      if (dropped.length > 0) out.push(ev('unpublish', next, dropped));
      const added = next.tracks.filter((t) => !p.tracks.some((o) => o.kind === t.kind && o.codec === t.codec));
      if (added.length > 0) out.push(ev('publish', next, added));
    }
  }
  for (const p of after.participants) {
    if (before.participants.some((q) => q.uid === p.uid)) continue;
    out.push(ev('join', p, []));
    if (p.tracks.length > 0) out.push(ev('publish', p, p.tracks));
  }
  return out;
}
