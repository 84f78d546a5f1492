/**
 * After a process restart (docs/recording-web.md, "Restarts"): each earlier generation's capture segments
 * (`g<k>/capture/seg_<run>_<n>.ts`, one stream per capture run) are recovered by the common track recovery
 * (common/recovery.ts): segments closed on disk but never handed to the spool are uploaded under that generation's
 * names and its playlist is finished with `#EXT-X-ENDLIST`.
 */
import { join } from 'node:path';
import type { SessionNaming } from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { dirEntries, earlierGenerations, recoverTrack } from '../common/recovery.ts';
import { webPlaylistName, webSliceName } from './options.ts';

/** Slices recovered per earlier generation (`g<k>`), for the log. */
export async function recoverWebLeftovers(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
}): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
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
    if (track && !track.alreadyEnded) out[gen.name] = track.recovered;
  }
  return out;
}
