/**
 * After a restart or a failover (docs/recording-mix.md, "Restarts and failover"): each earlier run of the session
 * (`g<k>/`, its encoder runs' slices in `mix/run<n>/`, its HLS track writer in `hls/`) is recovered by the common track
 * recovery: slices closed on disk but never handed to the uploader are uploaded under that run's names, and its
 * playlist is finished. What comes back is what the session lists and turns into that run's MP4s at the end.
 */
import { basename, dirname, join } from 'node:path';
import { mixPlaylistName, mixSliceName, type SessionNaming, type TrackKind } from '../../media/index.ts';
import { MIX_SLICE_SUBDIR } from '../../media/mix/live/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { dirEntries, earlierGenerations, recoverTrack, type RecoveredTrack } from '../common/output/index.ts';

/** The HLS track writer's directory in a run's `g<k>` dir (the encoder's slices are in MIX_SLICE_SUBDIR). */
export const MIX_TRACK_DIR = 'hls';

export interface RecoveredMixRun {
  readonly naming: SessionNaming;
  readonly track: RecoveredTrack;
}

export async function recoverMixRuns(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
  readonly kind: TrackKind;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
}): Promise<RecoveredMixRun[]> {
  const out: RecoveredMixRun[] = [];
  for (const gen of await earlierGenerations(opts)) {
    const slices = await runSlices(join(gen.dir, MIX_SLICE_SUBDIR));
    const track = await recoverTrack(
      {
        trackDir: join(gen.dir, MIX_TRACK_DIR),
        kind: opts.kind,
        sliceFiles: slices,
        // One encoder per run (a hold ends a run): a run's slices are one continuous stream.
        streamOf: (path) => basename(dirname(path)),
        sliceName: (startMs, container) => mixSliceName(gen.naming, startMs, container),
        playlistName: mixPlaylistName(gen.naming),
      },
      opts.upload,
    );
    if (track) out.push({ naming: gen.naming, track });
  }
  return out;
}

/** The slices of every encoder run in `dir` (`run<n>/slice_<k>.ts`), in recording order: by run, then by slice. */
async function runSlices(dir: string): Promise<string[]> {
  const number = (name: string) => Number(/\d+/.exec(name)?.[0] ?? 0);
  const runs = (await dirEntries(dir)).filter((e) => /^run\d+$/.test(e)).sort((a, b) => number(a) - number(b));
  const out: string[] = [];
  for (const run of runs) {
    const slices = (await dirEntries(join(dir, run))).filter((e) => /^slice_\d+\.ts$/.test(e));
    slices.sort((a, b) => number(a) - number(b));
    out.push(...slices.map((f) => join(dir, run, f)));
  }
  return out;
}
