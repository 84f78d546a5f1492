/**
 * The MP4 files of a web session: its TS slices concatenated without re-encoding, a new file each time one
 * reaches `maxVideoDuration` (docs/recording-web.md, "Files"), each uploaded as `<sid>_<cname>_<index>.mp4`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runFfmpeg, type SessionNaming } from '../../media/index.ts';
import type { RecordedFile } from '../../recording/dispatch/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { planMp4Files, webMp4Name, type TimedSlice } from './options.ts';

export interface Mp4Input {
  readonly slices: readonly TimedSlice[];
  readonly splitSec: number;
  readonly naming: SessionNaming;
  readonly workDir: string;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
}

export async function writeMp4Files(i: Mp4Input): Promise<RecordedFile[]> {
  await mkdir(i.workDir, { recursive: true });
  const out: RecordedFile[] = [];
  const groups = planMp4Files(i.slices, i.splitSec);
  for (const [index, group] of groups.entries()) {
    const list = join(i.workDir, `concat_${index}.txt`);
    // The concat demuxer's quoting: single quotes, embedded ones escaped.
    await writeFile(list, group.map((s) => `file '${s.path.replace(/'/g, "'\\''")}'`).join('\n') + '\n');
    const name = webMp4Name(i.naming, index);
    const local = join(i.workDir, name);
    await runFfmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-map', '0:v', '-map', '0:a', '-c', 'copy', '-movflags', '+faststart', local]);
    const res = await i.upload.enqueue(local, i.upload.objectKey(name), { contentType: 'video/mp4' });
    if (!res.ok) continue;
    out.push({ fileName: res.key, trackType: 'audio_and_video', uid: '0', mixedAllUser: true, isPlayable: true, sliceStartTime: group[0]!.startMs });
  }
  return out;
}
