/**
 * After a recorder restart: slices the previous run closed on disk but never handed to the uploader (it died
 * first) are uploaded under that run's names and appended to its playlist, which is then finished. Each track
 * directory keeps `journal.jsonl` (slices already enqueued) and `playlist.m3u8` (the last playlist written).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
  if (!existsSync(opts.sessionDir)) return out;
  for (const gen of readdirSync(opts.sessionDir).filter((g) => /^g\d+$/.test(g) && g !== opts.currentGeneration)) {
    const naming = generationNaming(opts.naming, gen);
    const genDir = join(opts.sessionDir, gen);
    for (const trackDir of readdirSync(genDir)) {
      const m = /^(\d+)-(audio|video)$/.exec(trackDir);
      if (!m) continue;
      const [uid, kind] = [m[1]!, m[2] as TrackKind];
      const dir = join(genDir, trackDir);
      const journalPath = join(dir, 'journal.jsonl');
      const done = new Set<string>();
      if (existsSync(journalPath)) {
        for (const line of readFileSync(journalPath, 'utf8').split('\n')) {
          if (line.trim()) done.add((JSON.parse(line) as { localPath: string }).localPath);
        }
      }
      let lastStream = [...done].at(-1)?.split('/').at(-2);
      const playlistPath = join(dir, 'playlist.m3u8');
      let playlist = existsSync(playlistPath) ? parsePlaylist(readFileSync(playlistPath, 'utf8'), kind) : createPlaylist(kind);
      if (playlist.ended) continue;
      const leftovers = readdirSync(dir)
        .filter((s) => /^s\d+$/.test(s))
        .flatMap((s) => readdirSync(join(dir, s)).filter((f) => /^slice_\d+\.(ts|webm)$/.test(f)).map((f) => join(dir, s, f)))
        .filter((p) => !done.has(p) && statSync(p).size > 0)
        .sort();
      let recovered = 0;
      for (const path of leftovers) {
        const st = statSync(path);
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
      writeFileSync(playlistPath, renderPlaylist(playlist));
      await opts.upload.enqueue(playlistPath, opts.upload.objectKey(opts.playlistKey(naming, uid, kind)), {
        contentType: 'application/vnd.apple.mpegurl',
      });
      out.push({ uid, kind, slices: recovered });
    }
  }
  return out;
}
