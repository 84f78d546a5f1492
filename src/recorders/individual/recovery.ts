/**
 * After a recorder restart: slices the previous run closed on disk but never handed to the uploader (it died
 * first) are uploaded under that run's names and appended to its playlist, which is then finished. Each track
 * directory keeps `journal.jsonl` (slices already enqueued) and `playlist.m3u8` (the last playlist written).
 */
import type { Stats } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  appendSlice,
  createPlaylist,
  endPlaylist,
  parsePlaylist,
  renderPlaylist,
  sliceName,
  type SessionNaming,
  type TrackKind,
} from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { JOURNAL_FILE, PLAYLIST_CONTENT_TYPE, PLAYLIST_FILE } from '../common/hls-track.ts';

/** Directory entries, or none when the directory does not exist. */
async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

async function text(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined);
}

export interface RecoveredTrack {
  readonly uid: string;
  readonly kind: TrackKind;
  readonly slices: number;
}

/** `g0` is the first run (no prefix); `g<k>` ran with `bak<k-1>_`. */
export function generationNaming(base: Omit<SessionNaming, 'backupIndex'>, generation: string): SessionNaming {
  const k = Number(generation.slice(1));
  return { ...base, backupIndex: k === 0 ? undefined : k - 1 };
}

export async function recoverLeftovers(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
  readonly upload: UploadSession;
  readonly playlistKey: (naming: SessionNaming, uid: string, kind: TrackKind) => string;
}): Promise<RecoveredTrack[]> {
  const out: RecoveredTrack[] = [];
  for (const gen of (await entries(opts.sessionDir)).filter((g) => /^g\d+$/.test(g) && g !== opts.currentGeneration)) {
    const naming = generationNaming(opts.naming, gen);
    const genDir = join(opts.sessionDir, gen);
    for (const trackDir of await entries(genDir)) {
      const m = /^(\d+)-(audio|video)$/.exec(trackDir);
      if (!m) continue;
      const [uid, kind] = [m[1]!, m[2] as TrackKind];
      const dir = join(genDir, trackDir);
      const done = new Set<string>();
      for (const line of ((await text(join(dir, JOURNAL_FILE))) ?? '').split('\n')) {
        if (line.trim()) done.add((JSON.parse(line) as { localPath: string }).localPath);
      }
      let lastStream = [...done].at(-1)?.split('/').at(-2);
      const playlistPath = join(dir, PLAYLIST_FILE);
      const written = await text(playlistPath);
      let playlist = written !== undefined ? parsePlaylist(written, kind) : createPlaylist(kind);
      if (playlist.ended) continue;
      const candidates: string[] = [];
      for (const s of (await entries(dir)).filter((e) => /^s\d+$/.test(e))) {
        for (const f of (await entries(join(dir, s))).filter((e) => /^slice_\d+\.(ts|webm)$/.test(e))) candidates.push(join(dir, s, f));
      }
      const leftovers: { path: string; st: Stats }[] = [];
      for (const path of candidates.filter((p) => !done.has(p)).sort()) {
        const st = await stat(path);
        if (st.size > 0) leftovers.push({ path, st });
      }
      let recovered = 0;
      for (const { path, st } of leftovers) {
        // The slice began when its file was created and ran until its last write.
        const startMs = Math.round(st.birthtimeMs || st.ctimeMs);
        const durationSec = Math.max(0.001, (st.mtimeMs - startMs) / 1000);
        const container = path.endsWith('.webm') ? 'webm' : 'ts';
        const name = sliceName(naming, uid, kind, startMs, container);
        const res = await opts.upload.enqueue(path, opts.upload.objectKey(name));
        if (!res.ok) continue;
        const stream = path.split('/').at(-2);
        playlist = appendSlice(playlist, { uri: name, durationSec, startMs, newStream: stream !== lastStream });
        lastStream = stream;
        recovered++;
      }
      if (playlist.entries.length === 0) continue;
      playlist = endPlaylist(playlist);
      await writeFile(playlistPath, renderPlaylist(playlist));
      await opts.upload.enqueue(playlistPath, opts.upload.objectKey(opts.playlistKey(naming, uid, kind)), {
        contentType: PLAYLIST_CONTENT_TYPE,
      });
      out.push({ uid, kind, slices: recovered });
    }
  }
  return out;
}
