/**
 * What a mix recording's processes cost, by part (the bench's publishers process, the mix's video and audio
 * decoders, its encoder, the floor's ffmpeg) and this Node process's own share, read from /proc: bench:mix and
 * bench:mix-simulcast.
 */
import { childrenOf } from '../../src/process/index.ts';
import { sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { cpuSecondsOf, ownCpuSeconds } from './proc-cpu.ts';
import { PUBLISHERS_SCRIPT } from './publishers-process.ts';

export type Part = 'videoDecoders' | 'audioDecoders' | 'encoder' | 'floor' | 'publishers';

function partOf(args: readonly string[]): Part | undefined {
  if (args.includes(PUBLISHERS_SCRIPT)) return 'publishers';
  if (args.some((a) => a.includes('xstack'))) return 'floor';
  // Video decoders read RTP through an SDP file; audio decoders Ogg on fd 3 (before that change, RTP too).
  const format = args[args.indexOf('-i') - 1];
  if (format === 'ogg') return 'audioDecoders';
  const sdp = args.find((a) => a.endsWith('.sdp'));
  if (sdp) return /\/video-[^/]*\.sdp$/.test(sdp) ? 'videoDecoders' : 'audioDecoders';
  if (args.includes('pipe:3') && args.includes('libx264')) return 'encoder';
  return undefined;
}

/** The processes to count: this process's children by part, the publishers process and its children. */
function scanParts(): Map<number, Part> {
  const out = new Map<number, Part>();
  for (const c of childrenOf(process.pid)) {
    const part = partOf(c.argv);
    if (!part) continue;
    out.set(c.pid, part);
    if (part === 'publishers') for (const g of childrenOf(c.pid)) out.set(g.pid, 'publishers');
  }
  return out;
}

export interface CpuFigures {
  readonly seconds: number;
  /** This process (the server: SFU, recorder's WebRTC receive, compositor, mixer), cores. */
  readonly node: number;
  readonly parts: Record<Part, number>;
}

/**
 * Cores used over `seconds`. The process table is scanned at the start, every 5 s (decoders that start late or
 * restart) and at the end; known processes are read every second so that one that exits still counts up to its
 * last reading. `during` runs once a second (samples of the benchmark's own).
 */
export async function measureCpu(seconds: number, during?: () => void): Promise<CpuFigures> {
  const parts = scanParts();
  const start = new Map<number, number>();
  const last = new Map<number, number>();
  const read = (): void => {
    for (const pid of parts.keys()) {
      const cpu = cpuSecondsOf(pid);
      if (cpu === undefined) continue;
      if (!start.has(pid)) start.set(pid, cpu); // new: counted from when first seen
      last.set(pid, cpu);
    }
  };
  read();
  const self0 = ownCpuSeconds();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  let tick = 0;
  while (performance.now() < until) {
    await sleep(Math.min(1000, Math.max(0, until - performance.now())));
    if (++tick % 5 === 0) for (const [pid, part] of scanParts()) if (!parts.has(pid)) parts.set(pid, part);
    read();
    during?.();
  }
  for (const [pid, part] of scanParts()) if (!parts.has(pid)) parts.set(pid, part);
  read();
  const elapsed = (performance.now() - t0) / 1000;
  const cores: Record<Part, number> = { videoDecoders: 0, audioDecoders: 0, encoder: 0, floor: 0, publishers: 0 };
  for (const [pid, cpu] of last) cores[parts.get(pid)!] += (cpu - start.get(pid)!) / elapsed;
  return { seconds: elapsed, node: (ownCpuSeconds() - self0) / elapsed, parts: cores };
}

