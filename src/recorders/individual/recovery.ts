/**
 * After a recorder restart: each earlier run's per-user tracks (`g<k>/<uid>-<kind>/`, slices in stream
 * subdirectories `s<n>/`) are recovered by the common track recovery (common/recovery.ts): slices closed on disk
 * but never handed to the uploader are uploaded under that run's names and its playlist is finished.
 */
import { join } from 'node:path';
import { sliceName, type SessionNaming, type TrackKind } from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { dirEntries, earlierGenerations, recoverTrack } from '../common/output/index.ts';

export { generationNaming } from '../common/output/index.ts';

export interface RecoveredTrack {
  readonly uid: string;
  readonly kind: TrackKind;
  readonly slices: number;
  /** Object key of the earlier run's playlist, and its first slice's start (to list it). */
  readonly playlistKey: string;
  readonly firstStartMs: number;
}

export async function recoverLeftovers(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
  readonly upload: UploadSession;
  readonly playlistKey: (naming: SessionNaming, uid: string, kind: TrackKind) => string;
}): Promise<RecoveredTrack[]> {
  const out: RecoveredTrack[] = [];
  for (const gen of await earlierGenerations(opts)) {
    for (const trackDir of await dirEntries(gen.dir)) {
      const m = /^(\d+)-(audio|video)$/.exec(trackDir);
      if (!m) continue;
      const [uid, kind] = [m[1]!, m[2] as TrackKind];
      const dir = join(gen.dir, trackDir);
      const sliceFiles: string[] = [];
      const streams = (await dirEntries(dir)).filter((e) => /^s\d+$/.test(e)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
      for (const s of streams) {
        for (const f of (await dirEntries(join(dir, s))).filter((e) => /^slice_\d+\.(ts|webm)$/.test(e)).sort()) sliceFiles.push(join(dir, s, f));
      }
      const track = await recoverTrack(
        {
          trackDir: dir,
          kind,
          sliceFiles,
          streamOf: (path) => path.split('/').at(-2) ?? '',
          sliceName: (startMs, container) => sliceName(gen.naming, uid, kind, startMs, container),
          playlistName: opts.playlistKey(gen.naming, uid, kind),
        },
        opts.upload,
      );
      if (track && !track.alreadyEnded) out.push({ uid, kind, slices: track.recovered, playlistKey: track.playlistKey, firstStartMs: track.firstStartMs });
    }
  }
  return out;
}
