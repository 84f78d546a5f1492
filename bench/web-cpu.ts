/**
 * CPU accounting for the web benchmarks: utime + stime from /proc, per process and summed over process trees,
 * sampled so that processes exiting during the window still count; and the same-run baseline (one ffmpeg encoding
 * a synthetic picture and tone with the capture encoder's settings, no capture).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FfmpegProcess } from '../src/media/ffmpeg.ts';

const TICK = 100; // USER_HZ on Linux

export interface Proc {
  readonly ppid: number;
  readonly cpuSec: number;
  /** The command name; ffmpeg split into `ffmpeg encoder` (x11grab), `ffmpeg pusher` (FLV out) and others. */
  readonly name: string;
}

function roleOf(pid: string, name: string): string {
  if (name !== 'ffmpeg') return name;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv.includes('x11grab')) return 'ffmpeg encoder';
    if (argv.includes('flv')) return 'ffmpeg pusher';
  } catch {
    /* exited meanwhile */
  }
  return 'ffmpeg other';
}

export function readProcs(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), { ppid: Number(f[1]), cpuSec: (Number(f[11]) + Number(f[12])) / TICK, name: roleOf(d, name) });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** The processes in the trees under `roots`, leaving out the trees under `exclude`. */
export function treeCpu(roots: readonly number[], exclude: readonly number[] = []): Map<number, Proc> {
  const all = readProcs();
  const inTree = new Set(roots);
  const out = new Set(exclude);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of all) {
      if (out.has(p.ppid) && !out.has(pid)) {
        out.add(pid);
        grew = true;
      }
      if (inTree.has(p.ppid) && !inTree.has(pid) && !out.has(pid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  return new Map([...all].filter(([pid]) => inTree.has(pid) && !out.has(pid)));
}

export interface CoreFigures {
  readonly cores: number;
  readonly byName: Map<string, number>;
}

/**
 * Cores used by the trees under `roots()` over `seconds`: per process, CPU at the end minus CPU at the start (0 for
 * a process that started meanwhile). Sampled every 500 ms so processes that exit still count.
 */
export async function measureCores(roots: () => number[], seconds: number, exclude: () => number[] = () => []): Promise<CoreFigures> {
  const first = treeCpu(roots(), exclude());
  const last = new Map(first);
  const t0 = process.hrtime.bigint();
  const timer = setInterval(() => {
    for (const [pid, p] of treeCpu(roots(), exclude())) last.set(pid, p);
  }, 500);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  for (const [pid, p] of treeCpu(roots(), exclude())) last.set(pid, p);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const byName = new Map<string, number>();
  let total = 0;
  for (const [pid, p] of last) {
    const used = p.cpuSec - (first.get(pid)?.cpuSec ?? 0);
    total += used;
    byName.set(p.name, (byName.get(p.name) ?? 0) + used / wall);
  }
  return { cores: total / wall, byName };
}

/** One ffmpeg encoding `testsrc2` and a sine at the given size with the capture encoder's settings, in cores. */
export async function baselineCores(dir: string, o: { width: number; height: number; fps: number; kbps: number; seconds: number }): Promise<number> {
  const ff = new FfmpegProcess(
    [
      '-loglevel', 'error', '-re',
      '-f', 'lavfi', '-i', `testsrc2=size=${o.width}x${o.height}:rate=${o.fps}`,
      '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000',
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-b:v', `${o.kbps}k`, '-maxrate', `${o.kbps}k`,
      '-bufsize', `${o.kbps * 2}k`, '-g', String(o.fps * 2), '-c:a', 'aac', '-b:a', '48k', '-ac', '1',
      '-f', 'segment', '-segment_time', '15', '-segment_format', 'mpegts', join(dir, 'base_%05d.ts'),
    ],
    { cwd: dir },
  );
  await new Promise((r) => setTimeout(r, 4000));
  const { cores } = await measureCores(() => [ff.child.pid!], o.seconds);
  await ff.stop();
  return cores;
}

export const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
