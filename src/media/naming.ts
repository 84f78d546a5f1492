/**
 * Object names of individual-mode recordings, exactly as the hosted service names them, so tooling written
 * against it keeps working (docs/recording-individual.md, "Files"). Pure: no clock, no I/O.
 */

export type TrackKind = 'audio' | 'video';
/** `av` names a file that carries both tracks of one user (MP4, merged index). */
export type FileTrack = TrackKind | 'av';

/** Characters the hosted service replaces with `-` in file names (docs/recording-individual.md, "Files"). */
const CNAME_SPECIAL = /[!@#$%^&*()+_.=[\]{}~|,;:?<>]/g;

export function sanitizeCname(cname: string): string {
  return cname.replace(CNAME_SPECIAL, '-');
}

/** `YYYYMMDDhhmmssmmm` in UTC: 17 digits. */
export function utcStamp(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) throw new RangeError(`invalid time ${ms}`);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    p(d.getUTCFullYear(), 4) +
    p(d.getUTCMonth() + 1) +
    p(d.getUTCDate()) +
    p(d.getUTCHours()) +
    p(d.getUTCMinutes()) +
    p(d.getUTCSeconds()) +
    p(d.getUTCMilliseconds(), 3)
  );
}

/** Inverse of utcStamp; undefined for anything that is not 17 digits of a real instant. */
export function parseUtcStamp(stamp: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})$/.exec(stamp);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as [number, number, number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  return utcStamp(t) === stamp ? t : undefined;
}

export interface SessionNaming {
  readonly sid: string;
  readonly cname: string;
  /** Restart generation: undefined for the first recorder, n for `bak<n>_` after the n+1-th takeover. */
  readonly backupIndex?: number | undefined;
}

function prefix(s: SessionNaming): string {
  if (s.backupIndex === undefined) return '';
  if (!Number.isInteger(s.backupIndex) || s.backupIndex < 0) throw new RangeError(`invalid backup index ${s.backupIndex}`);
  return `bak${s.backupIndex}_`;
}

/** `<sid>_<cname>__uid_s_<uid>__uid_e_<track>` (without bak prefix). */
function userBase(s: SessionNaming, uid: string, track: FileTrack): string {
  return `${s.sid}_${sanitizeCname(s.cname)}__uid_s_${uid}__uid_e_${track}`;
}

export function playlistName(s: SessionNaming, uid: string, track: TrackKind): string {
  return `${prefix(s)}${userBase(s, uid, track)}.m3u8`;
}

/** The `standard` stream mode's merged audio/video index (a master playlist; name not documented upstream). */
export function mergedPlaylistName(s: SessionNaming, uid: string): string {
  return `${prefix(s)}${userBase(s, uid, 'av')}.m3u8`;
}

export type SliceContainer = 'ts' | 'webm';

export function sliceName(s: SessionNaming, uid: string, track: TrackKind, startMs: number, container: SliceContainer): string {
  return `${prefix(s)}${userBase(s, uid, track)}_${utcStamp(startMs)}.${container}`;
}

export function snapshotName(s: SessionNaming, uid: string, atMs: number): string {
  return `${prefix(s)}${userBase(s, uid, 'video')}_${utcStamp(atMs)}.jpg`;
}

/** Live `[hls, mp4]` output: one MP4 per user, stamped with its first media time. */
export function userMp4Name(s: SessionNaming, uid: string, track: FileTrack, startMs: number): string {
  return `${prefix(s)}${userBase(s, uid, track)}_${utcStamp(startMs)}.mp4`;
}

/** Scene 2 postponed transcoding: one MP4 per user. */
export function transcodedMp4Name(s: SessionNaming, uid: string): string {
  return `${prefix(s)}${userBase(s, uid, 'av')}.mp4`;
}

export type AudioMixFormat = 'mp3' | 'm4a' | 'aac';

/** Scene 2 postponed audio mixing: one file of all users, named like a composite recording. */
export function audioMixName(s: SessionNaming, format: AudioMixFormat): string {
  return `${prefix(s)}${s.sid}_${sanitizeCname(s.cname)}.${format}`;
}

/** Mix mode's playlist of the composite (web mode's of the page too): `<sid>_<cname>.m3u8` (docs/recording-mix.md, "The session"). */
export function mixPlaylistName(s: SessionNaming): string {
  return `${prefix(s)}${s.sid}_${sanitizeCname(s.cname)}.m3u8`;
}

/**
 * reeltime's speaker timeline of a session (individual and mix): `<sid>_<cname>_speakers.json` and `.vtt`, named like
 * the mix playlist (docs/tasks/speaker-timeline.md).
 */
export function speakersName(s: SessionNaming, ext: 'json' | 'vtt'): string {
  return `${prefix(s)}${s.sid}_${sanitizeCname(s.cname)}_speakers.${ext}`;
}

/** Mix (and web) mode's TS slice: `<sid>_<cname>_<utc>.ts`, `<utc>` the slice's start. */
export function mixSliceName(s: SessionNaming, startMs: number, container: SliceContainer): string {
  return `${prefix(s)}${s.sid}_${sanitizeCname(s.cname)}_${utcStamp(startMs)}.${container}`;
}

/** Mix (and web) mode's MP4s: `<sid>_<cname>_<index>.mp4`, index from 0. */
export function mixMp4Name(s: SessionNaming, index: number): string {
  return `${prefix(s)}${s.sid}_${sanitizeCname(s.cname)}_${index}.mp4`;
}

export interface ParsedUserFile {
  readonly backupIndex: number | undefined;
  readonly sid: string;
  readonly cname: string;
  readonly uid: string;
  readonly track: FileTrack;
  readonly startMs: number | undefined;
  readonly extension: string;
}

const USER_FILE = /^(?:bak(\d+)_)?([^_]+)_(.*)__uid_s_(\d+)__uid_e_(audio|video|av)(?:_(\d{17}))?\.([a-z0-9]+)$/;

/** Reads back a per-user name (playlist, slice, snapshot, MP4); undefined for anything else. */
export function parseUserFileName(name: string): ParsedUserFile | undefined {
  const m = USER_FILE.exec(name);
  if (!m) return undefined;
  const stamp = m[6];
  const startMs = stamp === undefined ? undefined : parseUtcStamp(stamp);
  if (stamp !== undefined && startMs === undefined) return undefined;
  return {
    backupIndex: m[1] === undefined ? undefined : Number(m[1]),
    sid: m[2]!,
    cname: m[3]!,
    uid: m[4]!,
    track: m[5] as FileTrack,
    startMs,
    extension: m[7]!,
  };
}
