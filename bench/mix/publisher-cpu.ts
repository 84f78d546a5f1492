/**
 * What one synthetic publisher costs, live against replay (docs/channel.md, "Live and replay publishers"): for each
 * case, one publisher in its own process (bench/mix/publishers.ts, as the mix benchmark runs them) into an
 * in-process reeltime, and that process with its children (live: the ffmpeg encoder) counted from /proc over a
 * window after a warm-up. A replay publisher's encode happens before it reports ready, outside the window.
 *
 *   node --import tsx bench/mix/publisher-cpu.ts [--seconds S] [--count N] [case ...]
 *   (default 30 s, 1 publisher; cases: vp8-640x360 h264-640x360 vp8-320x180 vp8-160x120@5, the last the cluster
 *   benchmark's; with N publishers, in one process as the benchmarks run them, the figure is per publisher)
 */
import { treeCpuSeconds as treeCpu } from '../../src/process/index.ts';
import { startHarness } from '../../src/recorders/individual/testing/harness.ts';
import { loadAverage } from './proc-cpu.ts';
import type { PublishersPlan } from './publishers.ts';
import { startPublishersProcess } from './publishers-process.ts';

const argv = process.argv.slice(2);
const secondsAt = argv.indexOf('--seconds');
const SECONDS = secondsAt >= 0 ? Number(argv[secondsAt + 1]) : 30;
const countAt = argv.indexOf('--count');
const COUNT = countAt >= 0 ? Number(argv[countAt + 1]) : 1;
const WARMUP_SECONDS = 3;
const CASES: Record<string, { codec: 'vp8' | 'h264'; width: number; height: number; fps: number }> = {
  'vp8-640x360': { codec: 'vp8', width: 640, height: 360, fps: 15 },
  'h264-640x360': { codec: 'h264', width: 640, height: 360, fps: 15 },
  'vp8-320x180': { codec: 'vp8', width: 320, height: 180, fps: 15 },
  'vp8-160x120@5': { codec: 'vp8', width: 160, height: 120, fps: 5 },
};
const named = argv.filter((a) => a in CASES);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(baseUrl: string, cname: string, c: (typeof CASES)[string], mode: 'live' | 'replay'): Promise<number> {
  const plan: PublishersPlan = {
    baseUrl,
    cname,
    fps: c.fps,
    frameCode: false,
    mode,
    users: Array.from({ length: COUNT }, (_, i) => ({ uid: 1000 + i, color: 'red', toneHz: 440, codec: c.codec, width: c.width, height: c.height })),
  };
  const publishers = await startPublishersProcess(plan);
  try {
    await sleep(WARMUP_SECONDS * 1000);
    const cpu0 = treeCpu(publishers.pid);
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    return (treeCpu(publishers.pid) - cpu0) / ((performance.now() - t0) / 1000) / COUNT;
  } finally {
    await publishers.stop();
  }
}

async function main(): Promise<void> {
  const h = await startHarness();
  try {
    console.log(`publisher CPU, ${COUNT} publisher(s) per process, per publisher, ${SECONDS} s windows; load average ${loadAverage()}`);
    for (const name of named.length > 0 ? named : Object.keys(CASES)) {
      const c = CASES[name]!;
      const live = await measure(h.server.url, `cpu-${name}-live`, c, 'live');
      const replay = await measure(h.server.url, `cpu-${name}-replay`, c, 'replay');
      console.log(`${name}: live ${(live * 100).toFixed(1)} % of a core, replay ${(replay * 100).toFixed(1)} % (${(live / replay).toFixed(1)}x); load average ${loadAverage()}`);
    }
  } finally {
    await h.close();
  }
}

await main();
