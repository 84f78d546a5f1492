/**
 * After a process restart (docs/recording-web.md, "Restarts"): each earlier generation's segments that were closed
 * on disk but never handed to the spool are uploaded under that generation's names and appended to its playlist,
 * which is then finished with `#EXT-X-ENDLIST`. The HLS track writer's journal says what was handed over.
 */
import type { Stats } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appendSlice, createPlaylist, endPlaylist, parsePlaylist, renderPlaylist, type SessionNaming } from '../../media/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { JOURNAL_FILE, PLAYLIST_CONTENT_TYPE, PLAYLIST_FILE } from '../common/hls-track.ts';
import { generationNaming } from '../individual/recovery.ts';
import { webPlaylistName, webSliceName } from './options.ts';

const entries = (dir: string): Promise<string[]> => readdir(dir).catch(() => []);
const text = (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined);

/** Slices recovered per earlier generation (`g<k>`), for the log. */
export async function recoverWebLeftovers(opts: {
  readonly sessionDir: string;
  readonly currentGeneration: string;
  readonly naming: Omit<SessionNaming, 'backupIndex'>;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
}): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const gen of (await entries(opts.sessionDir)).filter((g) => /^g\d+$/.test(g) && g !== opts.currentGeneration)) {
    const naming = generationNaming(opts.naming, gen);
    const hlsDir = join(opts.sessionDir, gen, 'hls');
    const captureDir = join(opts.sessionDir, gen, 'capture');
    const written = await text(join(hlsDir, PLAYLIST_FILE));
    let playlist = written !== undefined ? parsePlaylist(written, 'video') : createPlaylist('video');
    if (playlist.ended) continue;
    const done = new Set<string>();
    for (const line of ((await text(join(hlsDir, JOURNAL_FILE))) ?? '').split('\n')) {
      if (line.trim()) done.add((JSON.parse(line) as { localPath: string }).localPath);
    }
    const leftovers: { path: string; st: Stats }[] = [];
    for (const f of (await entries(captureDir)).filter((e) => /^seg_\d+_\d+\.ts$/.test(e)).sort()) {
      const path = join(captureDir, f);
      if (done.has(path)) continue;
      const st = await stat(path);
      if (st.size > 0) leftovers.push({ path, st });
    }
    let recovered = 0;
    let lastRun = [...done].at(-1)?.split('/').at(-1)?.split('_')[1];
    for (const { path, st } of leftovers) {
      // The segment began when its file was created and ran until its last write.
      const startMs = Math.round(st.birthtimeMs || st.ctimeMs);
      const durationSec = Math.max(0.001, (st.mtimeMs - startMs) / 1000);
      const name = webSliceName(naming, startMs);
      const res = await opts.upload.enqueue(path, opts.upload.objectKey(name));
      if (!res.ok) continue;
      const run = path.split('/').at(-1)!.split('_')[1];
      playlist = appendSlice(playlist, { uri: name, durationSec, startMs, newStream: run !== lastRun });
      lastRun = run;
      recovered++;
    }
    if (playlist.entries.length === 0) continue;
    playlist = endPlaylist(playlist);
    const local = join(hlsDir, PLAYLIST_FILE);
    await mkdir(hlsDir, { recursive: true });
    await writeFile(local, renderPlaylist(playlist));
    await opts.upload.enqueue(local, opts.upload.objectKey(webPlaylistName(naming)), { contentType: PLAYLIST_CONTENT_TYPE });
    out[gen] = recovered;
  }
  return out;
}
