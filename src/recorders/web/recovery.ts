/**
 * After a process restart (docs/recording-web.md, "Restarts"): each earlier generation's capture segments
 * (`g<k>/capture/seg_<run>_<n>.ts`, one stream per capture run) are recovered by the common track recovery
 * (common/recovery.ts): segments closed on disk but never handed to the spool are uploaded under that generation's
 * names and its playlist is finished with `#EXT-X-ENDLIST`. The slices still on disk are returned for the MP4 files
 * the session writes at its stop under each generation's names (as mix mode does).
 */
import { join } from 'node:path';
import type { SessionNaming } from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { dirEntries, earlierGenerations, recoverTrack, type RecoveredTrack } from '../common/output/index.ts';
import { webPlaylistName, webSliceName } from './options.ts';

export interface RecoveredWebRun {
  /** The generation (`g<k>`). */
  readonly generation: string;
  /** Its names (`bak<n>_` after the first). */
  readonly naming: SessionNaming;
  readonly track: RecoveredTrack;
}

/** Every earlier generation that recorded something: its playlist finished, its slices on disk for MP4s. */
export async function recoverWebLeftovers(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
}): Promise<RecoveredWebRun[]> {
  const out: RecoveredWebRun[] = [];
  for (const gen of await earlierGenerations(opts)) {
    const captureDir = join(gen.dir, 'capture');
    const segments = (await dirEntries(captureDir)).filter((e) => /^seg_\d+_\d+\.ts$/.test(e)).sort();
    const track = await recoverTrack(
      {
        trackDir: join(gen.dir, 'hls'),
        kind: 'video',
        sliceFiles: segments.map((f) => join(captureDir, f)),
        streamOf: (path) => path.split('/').at(-1)?.split('_')[1] ?? '',
        sliceName: (startMs) => webSliceName(gen.naming, startMs),
        playlistName: webPlaylistName(gen.naming),
      },
      opts.upload,
    );
    if (track) out.push({ generation: gen.name, naming: gen.naming, track });
  }
  return out;
}
