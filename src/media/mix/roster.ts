import { NEVER_SENT, type UserVideoState, userLeft, videoFrameArrived, LEAVE_REFLOW_DELAY_MS } from './display-state.ts';

/** One user of the mix, in join order, with their video state. */
export interface RosterEntry {
  readonly uid: string;
  readonly video: UserVideoState;
}

/** The users of a mix in join order; every change returns a new roster. */
export type MixRoster = readonly RosterEntry[];

export const EMPTY_ROSTER: MixRoster = Object.freeze([]);

/** A join appends; joining again after leaving is a new join at the end of the order. */
export function rosterJoin(roster: MixRoster, uid: string): MixRoster {
  const existing = roster.find((e) => e.uid === uid);
  if (existing && existing.video.kind !== 'left') return roster;
  return Object.freeze([...roster.filter((e) => e.uid !== uid), Object.freeze({ uid, video: NEVER_SENT })]);
}

export function rosterLeave(roster: MixRoster, uid: string, atMs: number): MixRoster {
  return update(roster, uid, (video) => userLeft(video, atMs));
}

export function rosterVideoFrame(roster: MixRoster, uid: string, atMs: number): MixRoster {
  return update(roster, uid, (video) => videoFrameArrived(video, atMs));
}

/** Users that keep their slot at `nowMs`: everyone except those who left at least the reflow delay ago. */
export function rosterLayoutUsers(roster: MixRoster, nowMs: number): readonly string[] {
  return roster.filter((e) => !isGone(e, nowMs)).map((e) => e.uid);
}

/** Drops users who left long enough ago; the rest keep their order. */
export function rosterPrune(roster: MixRoster, nowMs: number): MixRoster {
  return roster.some((e) => isGone(e, nowMs)) ? Object.freeze(roster.filter((e) => !isGone(e, nowMs))) : roster;
}

function isGone(entry: RosterEntry, nowMs: number): boolean {
  return entry.video.kind === 'left' && nowMs - entry.video.leftAtMs >= LEAVE_REFLOW_DELAY_MS;
}

function update(roster: MixRoster, uid: string, change: (video: UserVideoState) => UserVideoState): MixRoster {
  const index = roster.findIndex((e) => e.uid === uid);
  if (index < 0) return roster;
  const entry = roster[index]!;
  const video = change(entry.video);
  if (video === entry.video) return roster;
  const next = [...roster];
  next[index] = Object.freeze({ uid, video });
  return Object.freeze(next);
}
