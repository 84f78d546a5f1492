/**
 * After a recording: one MP4 of a user's slices (concatenated per track, then muxed), and one audio file of
 * several users placed on a shared timeline. H.264 and AAC/Opus are copied; VP8 has no standard place in MP4,
 * so VP8 video is encoded to H.264 (libx264, veryfast) for a file every player opens.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFfmpeg } from './ffmpeg.ts';
import type { AudioMixFormat } from './naming.ts';

export interface SliceFile {
  readonly path: string;
  readonly startMs: number;
}

function concatList(dir: string, name: string, files: readonly SliceFile[]): string {
  const list = join(dir, name);
  // The concat demuxer's quoting: wrap in single quotes and escape embedded ones.
  writeFileSync(list, files.map((f) => `file '${f.path.replace(/'/g, "'\\''")}'`).join('\n') + '\n');
  return list;
}

export interface UserMp4Input {
  readonly video: readonly SliceFile[];
  readonly audio: readonly SliceFile[];
  readonly videoCodec: 'VP8' | 'H264' | undefined;
  readonly workDir: string;
  readonly output: string;
}

export async function userMp4(i: UserMp4Input): Promise<void> {
  const args: string[] = [];
  const maps: string[] = [];
  let n = 0;
  // Video starts at its first keyframe, usually after audio: the later track is offset so both stay in sync.
  const starts = [i.video[0]?.startMs, i.audio[0]?.startMs].filter((x): x is number => x !== undefined);
  const t0 = Math.min(...starts);
  const offset = (first: SliceFile) => ['-itsoffset', ((first.startMs - t0) / 1000).toFixed(3)];
  if (i.video.length > 0) {
    args.push(...offset(i.video[0]!), '-f', 'concat', '-safe', '0', '-i', concatList(i.workDir, 'video.txt', i.video));
    maps.push('-map', `${n++}:v:0`);
  }
  if (i.audio.length > 0) {
    args.push(...offset(i.audio[0]!), '-f', 'concat', '-safe', '0', '-i', concatList(i.workDir, 'audio.txt', i.audio));
    maps.push('-map', `${n++}:a:0`);
  }
  if (n === 0) throw new Error('no slices to put in an MP4');
  const vcodec = i.videoCodec === 'VP8' ? ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p'] : ['-c:v', 'copy'];
  await runFfmpeg([...args, ...maps, ...vcodec, '-c:a', 'copy', '-movflags', '+faststart', i.output]);
}

export interface AudioMixInput {
  /** Each user's audio slices, in order. */
  readonly users: readonly { readonly uid: string; readonly slices: readonly SliceFile[] }[];
  readonly format: AudioMixFormat;
  readonly sampleRate: number;
  readonly bitrate: number;
  readonly channels: 1 | 2;
  readonly workDir: string;
  readonly output: string;
}

const MIX_ENCODERS: Readonly<Record<AudioMixFormat, readonly string[]>> = Object.freeze({
  mp3: ['-c:a', 'libmp3lame', '-f', 'mp3'],
  m4a: ['-c:a', 'aac', '-f', 'ipod'],
  aac: ['-c:a', 'aac', '-f', 'adts'],
});

/** Mixes every user's audio, each delayed by its first slice's start relative to the earliest user. */
export async function mixAudio(i: AudioMixInput): Promise<void> {
  const users = i.users.filter((u) => u.slices.length > 0);
  if (users.length === 0) throw new Error('no audio to mix');
  const t0 = Math.min(...users.map((u) => u.slices[0]!.startMs));
  const args: string[] = [];
  const filters: string[] = [];
  users.forEach((u, k) => {
    args.push('-f', 'concat', '-safe', '0', '-i', concatList(i.workDir, `mix-${k}.txt`, u.slices));
    const delay = Math.max(0, Math.round(u.slices[0]!.startMs - t0));
    filters.push(`[${k}:a]aresample=${i.sampleRate},adelay=${delay}:all=1[a${k}]`);
  });
  const inputs = users.map((_, k) => `[a${k}]`).join('');
  filters.push(`${inputs}amix=inputs=${users.length}:duration=longest:normalize=0[out]`);
  await runFfmpeg([
    ...args,
    '-filter_complex', filters.join(';'),
    '-map', '[out]',
    '-ar', String(i.sampleRate),
    '-ac', String(i.channels),
    '-b:a', String(i.bitrate),
    ...MIX_ENCODERS[i.format],
    i.output,
  ]);
}
