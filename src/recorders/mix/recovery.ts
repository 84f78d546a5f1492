/**
 * After a restart or a failover (docs/recording-mix.md, "Restarts and failover"): each earlier run of the session
 * (`g<k>/`, its encoder's slices in `mix/`, its HLS track writer in `hls/`) is recovered by the common track
 * recovery: slices closed on disk but never handed to the uploader are uploaded under that run's names, and its
 * playlist is finished. What comes back is what the session lists and turns into that run's MP4s at the end.
 */
import { join } from 'node:path';
import { mixPlaylistName, mixSliceName, type SessionNaming, type TrackKind } from '../../media/index.ts';
import { MIX_SLICE_SUBDIR } from '../../media/mix/live/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { dirEntries, earlierGenerations, recoverTrack, type RecoveredTrack } from '../common/recovery.ts';

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
    const sliceDir = join(gen.dir, MIX_SLICE_SUBDIR);
    const slices = (await dirEntries(sliceDir)).filter((e) => /^slice_\d+\.ts$/.test(e)).sort();
    const track = await recoverTrack(
      {
        trackDir: join(gen.dir, MIX_TRACK_DIR),
        kind: opts.kind,
        sliceFiles: slices.map((f) => join(sliceDir, f)),
        // One encoder per run: its slices are one continuous stream.
        streamOf: () => MIX_SLICE_SUBDIR,
        sliceName: (startMs, container) => mixSliceName(gen.naming, startMs, container),
        playlistName: mixPlaylistName(gen.naming),
      },
      opts.upload,
    );
    if (track) out.push({ naming: gen.naming, track });
  }
  return out;
}
