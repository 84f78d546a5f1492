/**
 * Individual recording benchmark: N synthetic publishers (640x360@15 VP8 + Opus) recorded for DURATION s each.
 * Reports recorder CPU seconds per recorded stream-second (ffmpeg slicers measured from /proc; the in-process
 * WebRTC side as the server process's CPU with recording minus without), whether every stream kept up
 * (recorded media ≥ 95 % of wall time), start → first slice in the bucket, and synchronous stop latency.
 *
 *   node --import tsx bench/individual/index.ts [N ...]       (default 1 2 4; BENCH_SECONDS=60)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parsePlaylist } from '../../src/media/m3u8.ts';
import { rtcToken, startHarness, storageConfig } from '../../src/recorders/individual/testing/harness.ts';
import { bucketKeys, sleep, waitFor } from '../../src/recorders/individual/testing/media-checks.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const BASELINE_SECONDS = 10;
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const NS = counts.length > 0 ? counts : [1, 2, 4];
const TICK = 100; // USER_HZ on Linux

/** utime+stime (s) of every live ffmpeg whose command line reads a recorder SDP. */
function slicerCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.startsWith('ffmpeg') || !cmd.includes('input.sdp') || !cmd.includes('pipe:3')) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(d), (Number(f[11]) + Number(f[12])) / TICK);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

interface Row {
  n: number;
  streams: number;
  recordedSec: number;
  keptUp: boolean;
  slicerCpuPerStreamSec: number;
  inProcessCpuPerStreamSec: number;
  firstSliceMs: number;
  stopMs: number;
}

async function run(n: number): Promise<Row> {
  const h = await startHarness();
  try {
    const cname = `bench-${n}`;
    for (let i = 0; i < n; i++) {
      await h.publish({ cname, uid: 1000 + i, color: ['red', 'green', 'blue', 'yellow', 'white', 'cyan', 'magenta', 'gray'][i % 8]!, toneHz: 300 + 50 * i, codec: 'vp8' });
    }
    // Baseline: the same publishers and SFU without a recorder.
    const b0 = cpuNow();
    await sleep(BASELINE_SECONDS * 1000);
    const baselinePerSec = (cpuNow() - b0) / BASELINE_SECONDS;

    const tStart = Date.now();
    const c0 = cpuNow();
    const { resourceId, sid } = await h.startRecording(cname, '9999', {
      token: rtcToken(cname, 9999, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: n <= 2 ? 0 : n <= 7 ? 1 : 2 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const slicers = new Map<number, number>();
    const sample = setInterval(() => {
      for (const [pid, s] of slicerCpu()) slicers.set(pid, s);
    }, 500);
    const firstSlice = waitFor(() => bucketKeys(h.bucketDir).some((k) => /\.(ts|webm)$/.test(k)) && Date.now() - tStart, 120_000, 'first slice');
    const firstSliceMs = await firstSlice;
    await sleep(Math.max(0, SECONDS * 1000 - (Date.now() - tStart)));
    for (const [pid, s] of slicerCpu()) slicers.set(pid, s);
    clearInterval(sample);
    const tStop = Date.now();
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9999', clientRequest: {} });
    const stopMs = Date.now() - tStop;
    if (stop.status !== 200) throw new Error(`stop: ${stop.status} ${JSON.stringify(stop.body)}`);
    const wall = (tStop - tStart) / 1000;
    const inProcess = Math.max(0, cpuNow() - c0 - baselinePerSec * wall);
    const slicerCpuSec = [...slicers.values()].reduce((a, b) => a + b, 0);
    let recorded = 0;
    let keptUp = true;
    const keys = bucketKeys(h.bucketDir).filter((k) => k.endsWith('.m3u8') && !k.includes('__uid_e_av'));
    for (const k of keys) {
      const kind = k.includes('__uid_e_audio') ? 'audio' : 'video';
      const pl = parsePlaylist(readFileSync(`${h.bucketDir}/${k}`, 'utf8'), kind);
      const sec = pl.entries.reduce((s, e) => s + e.durationSec, 0);
      recorded += sec;
      const span = (tStop - pl.entries[0]!.startMs) / 1000;
      if (sec < 0.95 * span) keptUp = false;
    }
    if (keys.length !== 2 * n) keptUp = false;
    return {
      n,
      streams: keys.length,
      recordedSec: Math.round(recorded),
      keptUp,
      slicerCpuPerStreamSec: slicerCpuSec / recorded,
      inProcessCpuPerStreamSec: inProcess / recorded,
      firstSliceMs,
      stopMs,
    };
  } finally {
    await h.close();
  }
}

const rows: Row[] = [];
for (const n of NS) {
  const r = await run(n);
  rows.push(r);
  console.log(JSON.stringify(r));
  if (!r.keptUp) break;
}
console.log('\n| publishers | streams | recorded s | kept up | slicer CPU s / stream-s | in-process CPU s / stream-s | start→first slice | sync stop |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.n} | ${r.streams} | ${r.recordedSec} | ${r.keptUp ? 'yes' : 'no'} | ${r.slicerCpuPerStreamSec.toFixed(4)} | ${r.inProcessCpuPerStreamSec.toFixed(4)} | ${(r.firstSliceMs / 1000).toFixed(1)} s | ${r.stopMs} ms |`,
  );
}
const ok = rows.filter((r) => r.keptUp).map((r) => r.n);
console.log(`\nlargest N kept up with: ${ok.length ? Math.max(...ok) : 0} (tried ${NS.join(', ')}; ${SECONDS} s each)`);
process.exit(0);
