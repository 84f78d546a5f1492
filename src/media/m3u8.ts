/**
 * HLS media playlists in the hosted service's format (docs/recording-individual.md, "Playlists"):
 * `#EXT-X-VERSION:3`, media sequence 0, `#EXT-X-ALLOW-CACHE:YES`, `#EXTINF:<sec>` without the trailing comma
 * (unless `correctExtinf`), `#EXT-X-DISCONTINUITY` where a stream broke, the custom track-start tag, and
 * `#EXT-X-ENDLIST` once final.
 * Immutable values: each call returns a new playlist. Pure.
 */
import { parseUtcStamp, utcStamp, type TrackKind } from './naming.ts';

export interface PlaylistEntry {
  readonly uri: string;
  readonly durationSec: number;
  /** Wall-clock start of the slice (ms), for `#EXT-X-AGORA-TRACK-EVENT` on stream starts. */
  readonly startMs: number;
  /** The media before this slice is not continuous with it (user left, rejoined, recorder restarted). */
  readonly discontinuity: boolean;
}

export interface MediaPlaylist {
  readonly kind: 'media-playlist';
  readonly track: TrackKind;
  readonly entries: readonly PlaylistEntry[];
  readonly ended: boolean;
}

export function createPlaylist(track: TrackKind): MediaPlaylist {
  return Object.freeze({ kind: 'media-playlist', track, entries: Object.freeze([]), ended: false });
}

/**
 * Appends a closed slice. `newStream` marks the first slice of a (re)started stream; it gets a track-start tag,
 * and a discontinuity when anything came before it.
 */
export function appendSlice(
  p: MediaPlaylist,
  slice: { uri: string; durationSec: number; startMs: number; newStream: boolean },
): MediaPlaylist {
  if (p.ended) throw new Error('playlist already ended');
  if (!(slice.durationSec >= 0) || !Number.isFinite(slice.durationSec)) {
    throw new RangeError(`invalid slice duration ${slice.durationSec}`);
  }
  const entry: PlaylistEntry = Object.freeze({
    uri: slice.uri,
    durationSec: slice.durationSec,
    startMs: slice.startMs,
    discontinuity: slice.newStream && p.entries.length > 0,
  });
  return Object.freeze({ ...p, entries: Object.freeze([...p.entries, entry]) });
}

export function endPlaylist(p: MediaPlaylist): MediaPlaylist {
  return Object.freeze({ ...p, ended: true });
}

export interface RenderOptions {
  /** `privateParams.correctEXTINF`: write `#EXTINF:<sec>,` as RFC 8216 has it. */
  readonly correctExtinf?: boolean;
}

function seconds(n: number): string {
  return n.toFixed(3);
}

export function renderPlaylist(p: MediaPlaylist, opts: RenderOptions = {}): string {
  const target = Math.max(1, ...p.entries.map((e) => Math.ceil(e.durationSec)));
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-ALLOW-CACHE:YES', `#EXT-X-TARGETDURATION:${target}`];
  let previous: PlaylistEntry | undefined;
  for (const e of p.entries) {
    if (e.discontinuity) lines.push('#EXT-X-DISCONTINUITY');
    if (previous === undefined || e.discontinuity) {
      lines.push(`#EXT-X-AGORA-TRACK-EVENT:EVENT=START,TRACK_TYPE=${p.track.toUpperCase()},TIME=${utcStamp(e.startMs)}`);
    }
    lines.push(`#EXTINF:${seconds(e.durationSec)}${opts.correctExtinf ? ',' : ''}`);
    lines.push(e.uri);
    previous = e;
  }
  if (p.ended) lines.push('#EXT-X-ENDLIST');
  return lines.join('\n') + '\n';
}

/** Parses what renderPlaylist wrote (restart recovery reads the last uploaded playlist back). */
export function parsePlaylist(text: string, track: TrackKind): MediaPlaylist {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines[0] !== '#EXTM3U') throw new Error('not an M3U8 playlist');
  let pendingDuration: number | undefined;
  let pendingStart: number | undefined;
  let pendingDiscontinuity = false;
  let ended = false;
  const entries: PlaylistEntry[] = [];
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    if (line === '#EXT-X-DISCONTINUITY') pendingDiscontinuity = true;
    else if (line === '#EXT-X-ENDLIST') ended = true;
    else if (line.startsWith('#EXTINF:')) pendingDuration = Number.parseFloat(line.slice(8));
    else if (line.startsWith('#EXT-X-AGORA-TRACK-EVENT:')) {
      const m = /TIME=(\d{17})/.exec(line);
      if (m) pendingStart = parseUtcStamp(m[1]!);
    } else if (!line.startsWith('#')) {
      if (pendingDuration === undefined || !Number.isFinite(pendingDuration)) throw new Error(`slice ${line} has no #EXTINF`);
      const startMs = sliceStart(line) ?? pendingStart ?? 0;
      entries.push(Object.freeze({ uri: line, durationSec: pendingDuration, startMs, discontinuity: pendingDiscontinuity }));
      pendingDuration = undefined;
      pendingStart = undefined;
      pendingDiscontinuity = false;
    }
  }
  return Object.freeze({ ...createPlaylist(track), entries: Object.freeze(entries), ended });
}

function sliceStart(uri: string): number | undefined {
  const m = /_(\d{17})\.[a-z0-9]+$/.exec(uri);
  return m ? parseUtcStamp(m[1]!) : undefined;
}

/**
 * The `standard` stream mode's merged index: a master playlist pairing the user's video playlist with the
 * audio playlist as an alternative rendition, so one URL plays both.
 */
export function renderMergedIndex(opts: { videoUri?: string | undefined; audioUri?: string | undefined; bandwidth?: number }): string {
  const bw = opts.bandwidth ?? 600_000;
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3'];
  if (opts.audioUri && opts.videoUri) {
    lines.push(`#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,URI="${opts.audioUri}"`);
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${bw},AUDIO="audio"`, opts.videoUri);
  } else if (opts.videoUri) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${bw}`, opts.videoUri);
  } else if (opts.audioUri) {
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=64000`, opts.audioUri);
  } else {
    throw new Error('merged index needs at least one playlist');
  }
  return lines.join('\n') + '\n';
}
