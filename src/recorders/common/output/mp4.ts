/**
 * The MP4 files of a one-track recording (mix and web modes): a run's TS slices grouped into files (pure), each
 * group concatenated without re-encoding and uploaded as `<sid>_<cname>_<index>.mp4` under the run's names
 * (docs/recording-mix.md, docs/recording-web.md, "Files").
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mixMp4Name, runFfmpeg, type SessionNaming } from '../../../media/index.ts';
import type { RecordedFile } from '../../../recording/dispatch/index.ts';
import type { UploadSession } from '../../../storage/index.ts';

export interface Mp4Slice {
  readonly localPath: string;
  readonly startMs: number;
  readonly durationSec: number;
  /** Absent: not counted against a size limit. */
  readonly bytes?: number;
}

/**
 * Where a file ends: web mode closes one once it has reached `maxVideoDuration` (`reachMs`); mix mode before a
 * slice would pass its duration or size limit.
 */
export type Mp4Split =
  | { readonly kind: 'once-reached'; readonly reachMs: number }
  | { readonly kind: 'before-passing'; readonly maxMs: number; readonly maxBytes: number };

/** Slices grouped into MP4 files, in order. */
export function groupMp4Slices<T extends Mp4Slice>(slices: readonly T[], split: Mp4Split): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let ms = 0;
  let bytes = 0;
  for (const s of slices) {
    const sMs = s.durationSec * 1000;
    const full =
      split.kind === 'once-reached' ? ms >= split.reachMs : ms + sMs > split.maxMs || bytes + (s.bytes ?? 0) > split.maxBytes;
    if (current.length > 0 && full) {
      groups.push(current);
      current = [];
      ms = 0;
      bytes = 0;
    }
    current.push(s);
    ms += sMs;
    bytes += s.bytes ?? 0;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

export interface Mp4Run {
  /** The run's names (`bak<n>_` after a restart). */
  readonly naming: SessionNaming;
  readonly slices: readonly Mp4Slice[];
  /** Local directory of the run's MP4s (and the concat lists). */
  readonly workDir: string;
}

export interface Mp4Writing {
  readonly split: Mp4Split;
  /** The kinds the slices carry. */
  readonly streams: { readonly audio: boolean; readonly video: boolean };
  /** Whose media the files hold (the recording output's FileOwner). */
  readonly owner: Pick<RecordedFile, 'trackType' | 'uid' | 'mixedAllUser'>;
  readonly upload: Pick<UploadSession, 'enqueue' | 'objectKey'>;
  /** The spool refused a file (it is left out of the list). */
  readonly onUploadRefused?: (message: string) => void;
}

/** One run's MP4 files, uploaded; the ones the spool took, listed. Throws when ffmpeg fails. */
export async function writeMp4Files(run: Mp4Run, w: Mp4Writing): Promise<RecordedFile[]> {
  await mkdir(run.workDir, { recursive: true });
  const out: RecordedFile[] = [];
  const maps = [...(w.streams.video ? ['-map', '0:v'] : []), ...(w.streams.audio ? ['-map', '0:a'] : [])];
  for (const [index, group] of groupMp4Slices(run.slices, w.split).entries()) {
    const list = join(run.workDir, `concat_${index}.txt`);
    // The concat demuxer's quoting: single quotes, embedded ones escaped.
    await writeFile(list, group.map((s) => `file '${s.localPath.replace(/'/g, "'\\''")}'`).join('\n') + '\n');
    const name = mixMp4Name(run.naming, index);
    const local = join(run.workDir, name);
    await runFfmpeg(['-f', 'concat', '-safe', '0', '-i', list, ...maps, '-c', 'copy', '-movflags', '+faststart', local]);
    const res = await w.upload.enqueue(local, w.upload.objectKey(name), { contentType: 'video/mp4' });
    if (!res.ok) {
      w.onUploadRefused?.(res.message);
      continue;
    }
    out.push({ fileName: res.key, ...w.owner, isPlayable: true, sliceStartTime: group[0]!.startMs });
  }
  return out;
}
