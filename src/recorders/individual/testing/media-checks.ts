/** What the tests check on recorded files: ffprobe facts and the colour of a decoded frame. */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { FFMPEG_BIN, FFPROBE_BIN } from '../../../media/index.ts';

const run = promisify(execFile);

export interface Probe {
  readonly duration: number;
  readonly codecs: readonly string[];
  readonly width?: number;
  readonly height?: number;
  readonly sampleRate?: number;
  readonly channels?: number;
}

export async function probe(file: string): Promise<Probe> {
  // WebM slices in an HLS playlist are the hosted service's format, outside ffmpeg's default extension list.
  const hls = file.endsWith('.m3u8') ? ['-allowed_segment_extensions', 'ALL'] : [];
  const { stdout } = await run(FFPROBE_BIN, ['-v', 'error', ...hls, '-show_entries', 'format=duration:stream=codec_name,width,height,sample_rate,channels', '-of', 'json', file]);
  const j = JSON.parse(stdout) as {
    format?: { duration?: string };
    streams?: { codec_name: string; width?: number; height?: number; sample_rate?: string; channels?: number }[];
  };
  const streams = j.streams ?? [];
  const v = streams.find((s) => s.width);
  const a = streams.find((s) => s.sample_rate);
  return {
    duration: Number(j.format?.duration ?? NaN),
    codecs: streams.map((s) => s.codec_name),
    ...(v?.width ? { width: v.width, height: v.height } : {}),
    ...(a?.sample_rate ? { sampleRate: Number(a.sample_rate), channels: a.channels } : {}),
  };
}

/**
 * A file's decoded video frames by picture width (a stream whose size changes midway has two), and the longest
 * time between two frames (s): a freeze.
 */
export async function videoFramesIn(file: string): Promise<{ readonly byWidth: Record<number, number>; readonly longestGapSec: number }> {
  const { stdout } = await run(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=width,pts_time', '-of', 'json', file]);
  const frames = (JSON.parse(stdout) as { frames?: { width?: number; pts_time?: string }[] }).frames ?? [];
  const byWidth: Record<number, number> = {};
  let longestGapSec = 0;
  let prev: number | undefined;
  for (const f of frames) {
    const width = f.width ?? 0;
    const pts = Number(f.pts_time);
    if (!(width > 0) || !Number.isFinite(pts)) continue;
    byWidth[width] = (byWidth[width] ?? 0) + 1;
    if (prev !== undefined) longestGapSec = Math.max(longestGapSec, pts - prev);
    prev = pts;
  }
  return { byWidth, longestGapSec };
}

/** Media time a file's packets cover (s): the first packet's pts to the last packet's end, and how many packets. */
export async function packetSpan(file: string): Promise<{ readonly spanSec: number; readonly packets: number }> {
  const { stdout } = await run(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', file]);
  // Lines without a pts (ffprobe prints an empty one for some MPEG-TS packets) would read as pts 0.
  const rows = stdout
    .trim()
    .split('\n')
    .map((l) => l.split(','))
    .filter((f) => f[0] !== undefined && f[0].trim() !== '' && f[0] !== 'N/A')
    .map((f) => f.map(Number))
    .filter((r) => Number.isFinite(r[0]));
  if (rows.length === 0) return { spanSec: 0, packets: 0 };
  const first = Math.min(...rows.map((r) => r[0]!));
  const end = Math.max(...rows.map((r) => r[0]! + (Number.isFinite(r[1]) ? r[1]! : 0)));
  return { spanSec: end - first, packets: rows.length };
}

/** RGB of the centre pixel of the frame at `atSec` (the frame counter sits in the top-left corner). */
export async function centrePixel(file: string, atSec?: number): Promise<[number, number, number]> {
  const { stdout } = await run(
    FFMPEG_BIN,
    ['-v', 'error', ...(atSec ? ['-ss', String(atSec)] : []), '-i', file, '-frames:v', '1', '-vf', 'crop=8:8:(iw-8)/2:(ih-8)/2,scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
    { encoding: 'buffer' },
  );
  const b = stdout as unknown as Buffer;
  if (b.length < 3) throw new Error(`no frame decoded from ${file}`);
  return [b[0]!, b[1]!, b[2]!];
}

export function isColour(rgb: readonly number[], want: readonly number[], tolerance = 48): boolean {
  return rgb.every((v, i) => Math.abs(v - want[i]!) <= tolerance);
}

/**
 * Whether `p` is a directory, or undefined when it is gone: a walk may run while uploads land, and a storage
 * write renames its `.part-…` file into place between our readdir and our stat.
 */
function isDirectoryIfPresent(p: string): boolean | undefined {
  const st = statSync(p, { throwIfNoEntry: false });
  return st === undefined ? undefined : st.isDirectory();
}

/** Every object key under a local bucket directory (files that vanish during the walk are left out). */
export function bucketKeys(bucketDir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      const dir = isDirectoryIfPresent(p);
      if (dir === true) walk(p);
      else if (dir === false) out.push(relative(bucketDir, p));
    }
  };
  walk(bucketDir);
  return out.sort();
}


export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The slicers' slice files under a recorder's work directory (`<dataDir>/recorder`) holding at least `minBytes`
 * and last written after `sinceMs` (wall clock): how a test waits until media has reached the disk.
 */
export function slicesWritten(workDir: string, minBytes: number, sinceMs = 0): string[] {
  return filesUnder(workDir, (n) => /^slice_\d+\.(ts|webm)$/.test(n)).filter((f) => {
    const st = statSync(f, { throwIfNoEntry: false }); // uploaded and removed meanwhile
    return st !== undefined && st.size >= minBytes && st.mtimeMs > sinceMs;
  });
}

/** Every file under `dir` (recursively) whose name passes `keep`. */
export function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = join(dir, n);
    const isDir = isDirectoryIfPresent(p);
    return isDir === true ? filesUnder(p, keep) : isDir === false && keep(n) ? [p] : [];
  });
}

export const isSliceFile = (name: string): boolean => /\.(ts|webm)$/.test(name);
const sha256File = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The non-empty slices under these directories (work dirs, spool) by content hash: what a crash left on disk. */
export function slicesOnDisk(dirs: readonly string[]): Map<string, string> {
  return new Map(
    dirs
      .flatMap((d) => filesUnder(d, isSliceFile))
      .filter((f) => statSync(f).size > 0)
      .map((f) => [sha256File(f), f] as const),
  );
}

/** The local paths of `written` slices whose content is in no slice object of the bucket. */
export function slicesMissingFromBucket(written: ReadonlyMap<string, string>, bucketDir: string): string[] {
  const inBucket = new Set(bucketKeys(bucketDir).filter(isSliceFile).map((k) => sha256File(join(bucketDir, k))));
  return [...written].filter(([hash]) => !inBucket.has(hash)).map(([, f]) => f);
}
