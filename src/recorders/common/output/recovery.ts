/**
 * Restart recovery of one HLS track written by an earlier run of a session (every mode): the run's work dir is
 * `<sessionDir>/g<k>` (`g0` the first run, `g<k>` the run with `bak<k-1>_` names). Slices the run closed on disk
 * but never handed to the uploader (it died first) are uploaded under that run's names and appended to its
 * playlist, which is then finished with `#EXT-X-ENDLIST`. The track writer's `journal.jsonl` says which slices
 * were handed over; `playlist.m3u8` is the last playlist it wrote (docs/recording-individual.md, "Restarts").
 */
import { appendFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  appendSlice,
  createPlaylist,
  endPlaylist,
  parsePlaylist,
  renderPlaylist,
  type SessionNaming,
  type SliceContainer,
  type TrackKind,
} from '../../../media/index.ts';
import type { RecordedFile } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';
import { nextBackupIndex } from './backup-index.ts';
import { JOURNAL_FILE, PLAYLIST_CONTENT_TYPE, PLAYLIST_FILE } from './hls-track.ts';

/** Directory entries, or none when the directory does not exist. */
export async function dirEntries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

async function text(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined);
}

/** `g0` is the first run (no prefix); `g<k>` ran with `bak<k-1>_`. */
export function generationNaming(base: Omit<SessionNaming, 'backupIndex'>, generation: string): SessionNaming {
  const k = Number(generation.slice(1));
  return { ...base, backupIndex: k === 0 ? undefined : k - 1 };
}

/** The work dir name of a run: `g0` for the first, `g<n+1>` for the run with `bak<n>_` names. */
export function generationDir(backupIndex: number | undefined): string {
  return backupIndex === undefined ? 'g0' : `g${backupIndex + 1}`;
}

export interface EarlierGeneration {
  /** `g<k>`. */
  readonly name: string;
  readonly dir: string;
  readonly naming: SessionNaming;
}

/** The session's earlier runs found on disk, oldest first (the current one left out). */
export async function earlierGenerations(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
}): Promise<EarlierGeneration[]> {
  return (await dirEntries(opts.sessionDir))
    .filter((g) => /^g\d+$/.test(g) && g !== opts.currentGeneration)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
    .map((name) => ({ name, dir: join(opts.sessionDir, name), naming: generationNaming(opts.naming, name) }));
}

export interface TrackLeftovers {
  /** The track writer's directory (journal and playlist). */
  readonly trackDir: string;
  readonly kind: TrackKind;
  /** Every slice file the run wrote for this track, handed over or not, in recording order. */
  readonly sliceFiles: readonly string[];
  /** Slices of one stream share a key; a new key starts a discontinuity. */
  readonly streamOf: (path: string) => string;
  /** Object names under the run's naming. */
  readonly sliceName: (startMs: number, container: SliceContainer) => string;
  readonly playlistName: string;
}

export interface RecoveredSlice {
  readonly localPath: string;
  readonly startMs: number;
  readonly durationSec: number;
  readonly bytes: number;
}

export interface RecoveredTrack {
  /** Slices uploaded now (closed on disk, never handed over). */
  readonly recovered: number;
  /** The playlist was finished by an earlier recovery: nothing was done now. */
  readonly alreadyEnded: boolean;
  /** Object key of the run's playlist. */
  readonly playlistKey: string;
  /** Start of the run's first slice (ms). */
  readonly firstStartMs: number;
  /** Every slice the playlist names whose local copy is still on disk, in order (for MP4s). */
  readonly slices: readonly RecoveredSlice[];
}

/** Recovers one track of an earlier run; undefined when the run recorded nothing on it. */
export async function recoverTrack(t: TrackLeftovers, upload: Pick<UploadSession, 'enqueue' | 'objectKey'>): Promise<RecoveredTrack | undefined> {
  const handedOver: { localPath: string; startMs: number; durationSec: number }[] = [];
  for (const line of ((await text(join(t.trackDir, JOURNAL_FILE))) ?? '').split('\n')) {
    if (line.trim()) handedOver.push(JSON.parse(line) as { localPath: string; startMs: number; durationSec: number });
  }
  const slices: RecoveredSlice[] = [];
  for (const e of handedOver) {
    const bytes = await stat(e.localPath).then((s) => s.size, () => undefined);
    // A slice moved into the spool (or left on another machine) has no local copy for an MP4.
    if (bytes !== undefined) slices.push({ localPath: e.localPath, startMs: e.startMs, durationSec: e.durationSec, bytes });
  }
  const done = new Set(handedOver.map((e) => e.localPath));
  const playlistPath = join(t.trackDir, PLAYLIST_FILE);
  const written = await text(playlistPath);
  let playlist = written !== undefined ? parsePlaylist(written, t.kind) : createPlaylist(t.kind);
  const alreadyEnded = playlist.ended;
  let recovered = 0;
  if (!alreadyEnded) {
    const last = handedOver.at(-1);
    let lastStream = last ? t.streamOf(last.localPath) : undefined;
    const recoveredNow: { localPath: string; uri: string; startMs: number; durationSec: number }[] = [];
    for (const path of t.sliceFiles.filter((p) => !done.has(p))) {
      const st = await stat(path).catch(() => undefined);
      if (!st || st.size === 0) continue;
      // The slice began when its file was created and ran until its last write.
      const startMs = Math.round(st.birthtimeMs || st.ctimeMs);
      const durationSec = Math.max(0.001, (st.mtimeMs - startMs) / 1000);
      const name = t.sliceName(startMs, path.endsWith('.webm') ? 'webm' : 'ts');
      const res = await upload.enqueue(path, upload.objectKey(name));
      if (!res.ok) continue;
      const stream = t.streamOf(path);
      playlist = appendSlice(playlist, { uri: name, durationSec, startMs, newStream: stream !== lastStream });
      lastStream = stream;
      slices.push({ localPath: path, startMs, durationSec, bytes: st.size });
      recoveredNow.push({ localPath: path, uri: name, startMs, durationSec });
      recovered++;
    }
    if (playlist.entries.length === 0) return undefined;
    playlist = endPlaylist(playlist);
    // Nothing was handed over before the crash when it came within the first slice: no directory yet.
    await mkdir(t.trackDir, { recursive: true });
    await writeFile(playlistPath, renderPlaylist(playlist));
    await upload.enqueue(playlistPath, upload.objectKey(t.playlistName), { contentType: PLAYLIST_CONTENT_TYPE });
    // Journalled after the ended playlist, so a later restart still finds them (for MP4s) and uploads nothing twice.
    if (recoveredNow.length > 0) await appendFile(join(t.trackDir, JOURNAL_FILE), recoveredNow.map((e) => JSON.stringify(e) + '\n').join(''));
    handedOver.push(...recoveredNow);
  }
  const first = handedOver[0];
  if (!first) return undefined;
  return { recovered, alreadyEnded, playlistKey: upload.objectKey(t.playlistName), firstStartMs: first.startMs, slices };
}

/**
 * The `bak<n>_` index of a resumed run: one more than any the previous files carry, and past every run that left a
 * work dir (a run killed before it reported a file must not share its directory and names with the next).
 */
export async function resumedBackupIndex(previous: readonly RecordedFile[], sessionDir: string): Promise<number> {
  const runs = (await dirEntries(sessionDir)).filter((g) => /^g\d+$/.test(g)).map((g) => Number(g.slice(1)));
  return Math.max(nextBackupIndex(previous), ...runs);
}

export interface RunWorkDir {
  /** The run's `bak<n>_` index: undefined on a first run. */
  readonly backupIndex: number | undefined;
  /** `<workRoot>/<sid>/g<k>` (generationDir). */
  readonly workDir: string;
}

/** Where this run of a task works: a resumed run past every earlier one (resumedBackupIndex), a first run in `g0`. */
export async function runWorkDir(workRoot: string, task: { readonly sid: string; readonly resumed: boolean; readonly previousFiles: readonly RecordedFile[] }): Promise<RunWorkDir> {
  const sessionDir = join(workRoot, task.sid);
  const backupIndex = task.resumed ? await resumedBackupIndex(task.previousFiles, sessionDir) : undefined;
  return { backupIndex, workDir: join(sessionDir, generationDir(backupIndex)) };
}
