// The mix benchmark's floor (bench/mix/index.ts): what one ffmpeg costs to mix the same media from files.
import { join } from 'node:path';
import { syntheticFfmpegArgs } from '../../src/channel/publisher/ffmpeg-args.ts'; // not in the index: the publishers' own arguments, for the floor's input files
import { FfmpegProcess, runFfmpeg } from '../../src/media/ffmpeg.ts';
import { layout, MIX_LAYOUT, mixAudioProfile } from '../../src/media/mix/index.ts';
import { mixEncoderArgs } from '../../src/media/mix/live/index.ts';
import { sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { measureCpu, type CpuFigures } from './cpu-parts.ts';
import { BENCH_BITRATE_KBPS, BENCH_CANVAS, BENCH_FPS } from './mix-request.ts';
import type { PublisherPlan } from './publishers.ts';

/** The publisher's own ffmpeg arguments writing `seconds` of its media to files instead of RTP. */
function recordedInputArgs(p: PublisherPlan, videoFile: string, audioFile: string, seconds: number): string[] {
  const live = syntheticFfmpegArgs({ ...p, fps: BENCH_FPS, frameCode: true }, 1, 2);
  const files = [videoFile, audioFile];
  const out: string[] = [];
  for (let i = 0; i < live.length; i++) {
    const a = live[i]!;
    if (a === '-re') continue;
    if (a === '-payload_type') {
      i++;
      continue;
    }
    if (a === '-f' && live[i + 1] === 'rtp') {
      const file = files.shift();
      if (!file) throw new Error('the publisher writes more than two RTP outputs');
      out.push('-t', String(seconds), '-f', 'matroska', file);
      i += 2;
      continue;
    }
    out.push(a);
  }
  if (files.length > 0) throw new Error('the publisher no longer writes one RTP output per kind');
  return out;
}

/**
 * The floor: the same publishers' media written to files first, then one ffmpeg that scales, stacks, mixes and
 * encodes them as the mix recorder does, read at real time; its CPU over `seconds` after `warmupSeconds`.
 */
export async function floorRun(plan: readonly PublisherPlan[], dir: string, seconds: number, warmupSeconds: number): Promise<CpuFigures> {
  const n = plan.length;
  const inputSeconds = seconds + warmupSeconds + 5;
  const inputs: string[] = [];
  for (const [i, p] of plan.entries()) {
    const video = join(dir, `input-${i}-video.mkv`);
    const audio = join(dir, `input-${i}-audio.mkv`);
    await runFfmpeg(recordedInputArgs(p, video, audio, inputSeconds), { timeoutMs: 600_000 });
    inputs.push(video);
    inputs.push(audio);
  }
  const regions = layout(MIX_LAYOUT.bestFit, BENCH_CANVAS, plan.map((p) => String(p.uid))).filter((r) => r.uid !== null);
  const videoIn = (i: number): number => 2 * i;
  const audioIn = (i: number): number => 2 * i + 1;
  const scaled = regions.map((r, i) => `[${videoIn(i)}:v]scale=${r.rect.width}:${r.rect.height}:flags=bilinear[s${i}]`);
  const stack = `${regions.map((_, i) => `[s${i}]`).join('')}xstack=inputs=${n}:fill=black:layout=${regions.map((r) => `${r.rect.x}_${r.rect.y}`).join('|')}[x]`;
  const pad = `[x]pad=${BENCH_CANVAS.width}:${BENCH_CANVAS.height}[v]`;
  const mix = `${plan.map((_, i) => `[${audioIn(i)}:a]`).join('')}amix=inputs=${n}:normalize=0[a]`;
  const audio = mixAudioProfile(0);
  const encoder = mixEncoderArgs({ workDir: dir, canvas: BENCH_CANVAS, fps: BENCH_FPS, bitrateKbps: BENCH_BITRATE_KBPS, audio, video: true, originMs: 0 });
  // The mix encoder's output options with our own maps: from its first codec option on, the slice list to a file.
  const output = encoder
    .slice(encoder.indexOf('-c:v'))
    .filter((a, i, all) => !(a === '-map' || all[i - 1] === '-map'))
    .map((a) => (a === 'pipe:5' ? join(dir, 'floor.csv') : a));
  const args = [
    '-loglevel', 'error',
    ...inputs.flatMap((f) => ['-re', '-i', f]),
    '-filter_complex', [...scaled, stack, pad, mix].join(';'),
    '-map', '[v]', '-map', '[a]', '-r', String(BENCH_FPS), ...output,
  ];
  const ffmpeg = new FfmpegProcess(args, { cwd: dir });
  try {
    await sleep(warmupSeconds * 1000);
    if (!ffmpeg.running) throw new Error(`floor ffmpeg exited: ${(await ffmpeg.exited).stderrTail}`);
    return await measureCpu(seconds);
  } finally {
    await ffmpeg.stop(3000);
  }
}
