/**
 * Individual recording benchmark: N synthetic publishers (640x360@15 VP8 + Opus) recorded for DURATION s each.
 * Reports where the recorder's cost goes per recorded stream-second: the ffmpeg slicers (from /proc), split into
 * audio slicers (Opus→AAC in `default` streamMode, Opus copied in `original`) and video slicers (VP8 copied), the
 * bytes those slicers write, and the in-process WebRTC receive (SRTP decrypt, re-packetise to loopback UDP) as the
 * server process's CPU with recording minus the same publishers and SFU without a recorder (the baseline, measured
 * in the same run). Memory: slicer RSS per stream and the server's RSS growth per stream. Also whether every stream
 * kept up (recorded media ≥ 95 % of wall time), start → first slice in the bucket, and synchronous stop latency.
 *
 * Media path: `BENCH_MEDIA_PATH=tap` (the in-process tap, the default beside the SFU), `whep` (loopback WHEP
 * subscriptions) or `both` (default: whep then tap for each N, each with its own baseline, and their ratio).
 * Scale: `BENCH_SESSIONS=k` runs k recording sessions (task uids 9000…) on the same channel, each recording every
 * publisher, so k·N users' streams are recorded while the publishers stay N (their cost is in the baseline).
 *
 *   node --import tsx bench/individual/index.ts [N ...]   (default 1 2 4; BENCH_SECONDS=60; BENCH_STREAM_MODE=original;
 *                                                         BENCH_MEDIA_PATH=both|tap|whep; BENCH_SESSIONS=1)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parsePlaylist } from '../../src/media/m3u8.ts';
import { rtcToken, startHarness, storageConfig } from '../../src/recorders/individual/testing/harness.ts';
import { bucketKeys, sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { waitUntil } from '../../src/testing/wait.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const BASELINE_SECONDS = 10;
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const NS = counts.length > 0 ? counts : [1, 2, 4];
const STREAM_MODE = process.env.BENCH_STREAM_MODE === 'original' ? 'original' : 'default';
const TICK = 100; // USER_HZ on Linux
const SESSIONS = Math.max(1, Number(process.env.BENCH_SESSIONS ?? 1));
type Path = 'tap' | 'whep';
const PATHS: readonly Path[] = process.env.BENCH_MEDIA_PATH === 'tap' ? ['tap'] : process.env.BENCH_MEDIA_PATH === 'whep' ? ['whep'] : ['whep', 'tap'];

interface SlicerSample {
  readonly kind: 'audio' | 'video';
  readonly cpuSec: number;
  readonly rssKb: number;
  readonly writeBytes: number;
  /** Proportional set size: shared library pages divided among the processes sharing them. */
  readonly pssKb: number;
}

const procField = (text: string, name: string): number => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0);

/**
 * CPU (utime+stime, s), RSS and bytes written of every live ffmpeg of this process (setpriv execs it, so its parent
 * is us; other processes on the machine may run slicers too) whose command line reads a recorder SDP.
 */
function slicerCpu(): Map<number, SlicerSample> {
  const out = new Map<number, SlicerSample>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      // Slicers: the segment muxer writing slice_%05d with its list on fd 3 (audio reads Ogg on stdin, video an SDP).
      if (!cmd.startsWith('ffmpeg') || !cmd.includes('slice_%05d') || !cmd.includes('pipe:3')) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== process.pid) continue;
      const kind = cmd.includes('0:a') ? 'audio' : 'video';
      const rssKb = procField(readFileSync(`/proc/${d}/status`, 'utf8'), 'VmRSS');
      const writeBytes = procField(readFileSync(`/proc/${d}/io`, 'utf8'), 'wchar');
      const pssKb = procField(readFileSync(`/proc/${d}/smaps_rollup`, 'utf8'), 'Pss');
      out.set(Number(d), { kind, cpuSec: (Number(f[11]) + Number(f[12])) / TICK, rssKb, writeBytes, pssKb });
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
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

interface Row {
  n: number;
  path: Path;
  sessions: number;
  streams: number;
  recordedSec: number;
  keptUp: boolean;
  streamMode: string;
  baselineCpuPerSec: number;
  slicerCpuPerStreamSec: number;
  audioSlicerCpuPerStreamSec: number;
  videoSlicerCpuPerStreamSec: number;
  inProcessCpuPerStreamSec: number;
  totalCpuPerStreamSec: number;
  slicerWriteKBPerStreamSec: number;
  slicerRssMbPerStream: number;
  slicerPssMbPerStream: number;
  serverRssGrowthMbPerStream: number;
  firstSliceMs: number;
  stopMs: number;
}

async function run(n: number, path: Path): Promise<Row> {
  const h = await startHarness({ recording: { mediaPath: path === 'tap' ? 'auto' : 'whep', maxConcurrentTasks: 1000 } });
  try {
    const cname = `bench-${n}`;
    for (let i = 0; i < n; i++) {
      await h.publish({ cname, uid: 1000 + i, color: ['red', 'green', 'blue', 'yellow', 'white', 'cyan', 'magenta', 'gray'][i % 8]!, toneHz: 300 + 50 * i, codec: 'vp8' });
    }
    // Baseline: the same publishers and SFU without a recorder.
    const b0 = cpuNow();
    await sleep(BASELINE_SECONDS * 1000);
    const baselinePerSec = (cpuNow() - b0) / BASELINE_SECONDS;
    const rss0 = rssMb();
    let rssPeak = rss0;

    const tStart = Date.now();
    const c0 = cpuNow();
    const tasks: { resourceId: string; sid: string; uid: string }[] = [];
    for (let k = 0; k < SESSIONS; k++) {
      const uid = String(9000 + k);
      const t = await h.startRecording(cname, uid, {
        token: rtcToken(cname, Number(uid), 2),
        storageConfig: storageConfig(),
        // `original` records audio only (streamTypes 0 is its rule): its figures are the Opus-copy audio slicer.
        recordingConfig: { channelType: 0, streamMode: STREAM_MODE, ...(STREAM_MODE === 'original' ? { streamTypes: 0 as const } : {}), subscribeUidGroup: n <= 2 ? 0 : n <= 7 ? 1 : 2 },
        recordingFileConfig: { avFileType: ['hls'] },
      });
      tasks.push({ ...t, uid });
    }
    const slicers = new Map<number, SlicerSample>();
    const sample = setInterval(() => {
      for (const [pid, s] of slicerCpu()) slicers.set(pid, s);
      rssPeak = Math.max(rssPeak, rssMb());
    }, 500);
    const firstSlice = waitUntil(() => bucketKeys(h.bucketDir).some((k) => /\.(ts|webm)$/.test(k)) && Date.now() - tStart, { timeoutMs: 300_000, intervalMs: 200, what: 'first slice' });
    const firstSliceMs = await firstSlice;
    await sleep(Math.max(0, SECONDS * 1000 - (Date.now() - tStart)));
    for (const [pid, s] of slicerCpu()) slicers.set(pid, s);
    clearInterval(sample);
    const tStop = Date.now();
    const stops = await Promise.all(tasks.map((t) => h.api('POST', h.path(t.resourceId, t.sid, 'stop'), { cname, uid: t.uid, clientRequest: {} })));
    const stopMs = Date.now() - tStop;
    const failed = stops.find((x) => x.status !== 200);
    if (failed) throw new Error(`stop: ${failed.status} ${JSON.stringify(failed.body)}`);
    const wall = (tStop - tStart) / 1000;
    const inProcess = Math.max(0, cpuNow() - c0 - baselinePerSec * wall);
    const all = [...slicers.values()];
    const sum = (xs: SlicerSample[], f: (x: SlicerSample) => number) => xs.reduce((a, x) => a + f(x), 0);
    const audio = all.filter((x) => x.kind === 'audio');
    const video = all.filter((x) => x.kind === 'video');
    const slicerCpuSec = sum(all, (x) => x.cpuSec);
    let recorded = 0;
    const recordedBy = { audio: 0, video: 0 };
    let keptUp = true;
    const keys = bucketKeys(h.bucketDir).filter((k) => k.endsWith('.m3u8') && !k.includes('__uid_e_av'));
    for (const k of keys) {
      const kind = k.includes('__uid_e_audio') ? 'audio' : 'video';
      const pl = parsePlaylist(readFileSync(`${h.bucketDir}/${k}`, 'utf8'), kind);
      const sec = pl.entries.reduce((s, e) => s + e.durationSec, 0);
      recorded += sec;
      recordedBy[kind] += sec;
      const span = (tStop - pl.entries[0]!.startMs) / 1000;
      if (sec < 0.95 * span) keptUp = false;
    }
    if (keys.length !== SESSIONS * (STREAM_MODE === 'original' ? n : 2 * n)) keptUp = false;
    return {
      n,
      path,
      sessions: SESSIONS,
      streams: keys.length,
      recordedSec: Math.round(recorded),
      keptUp,
      streamMode: STREAM_MODE,
      baselineCpuPerSec: baselinePerSec,
      slicerCpuPerStreamSec: slicerCpuSec / recorded,
      audioSlicerCpuPerStreamSec: sum(audio, (x) => x.cpuSec) / recordedBy.audio,
      videoSlicerCpuPerStreamSec: recordedBy.video > 0 ? sum(video, (x) => x.cpuSec) / recordedBy.video : 0,
      inProcessCpuPerStreamSec: inProcess / recorded,
      totalCpuPerStreamSec: (slicerCpuSec + inProcess) / recorded,
      slicerWriteKBPerStreamSec: sum(all, (x) => x.writeBytes) / 1024 / recorded,
      slicerRssMbPerStream: sum(all, (x) => x.rssKb) / 1024 / Math.max(1, all.length),
      slicerPssMbPerStream: sum(all, (x) => x.pssKb) / 1024 / Math.max(1, all.length),
      serverRssGrowthMbPerStream: (rssPeak - rss0) / Math.max(1, keys.length),
      firstSliceMs,
      stopMs,
    };
  } finally {
    await h.close();
  }
}

const rows: Row[] = [];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
for (const n of NS) {
  for (const path of PATHS) {
    const before = load();
    const r = await run(n, path);
    rows.push(r);
    console.log(JSON.stringify({ ...r, loadBefore: before, loadAfter: load() }));
  }
}
const f4 = (x: number) => x.toFixed(4);
console.log(`\nstreamMode ${STREAM_MODE}; ${SESSIONS} recording session(s) per channel; CPU in core-seconds per recorded stream-second`);
console.log('| publishers | media path | streams | recorded s | kept up | baseline core | audio slicer | video slicer | all slicers | in-process | total | slicer writes KB/stream-s | slicer RSS / PSS MB per stream | server RSS growth MB/stream | start→first slice | sync stop |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.n} | ${r.path} | ${r.streams} | ${r.recordedSec} | ${r.keptUp ? 'yes' : 'no'} | ${r.baselineCpuPerSec.toFixed(3)} | ${f4(r.audioSlicerCpuPerStreamSec)} | ${f4(r.videoSlicerCpuPerStreamSec)} | ${f4(r.slicerCpuPerStreamSec)} | ${f4(r.inProcessCpuPerStreamSec)} | ${f4(r.totalCpuPerStreamSec)} | ${r.slicerWriteKBPerStreamSec.toFixed(1)} | ${r.slicerRssMbPerStream.toFixed(1)} / ${r.slicerPssMbPerStream.toFixed(1)} | ${r.serverRssGrowthMbPerStream.toFixed(1)} | ${(r.firstSliceMs / 1000).toFixed(1)} s | ${r.stopMs} ms |`,
  );
}
for (const n of NS) {
  const w = rows.find((r) => r.n === n && r.path === 'whep');
  const t = rows.find((r) => r.n === n && r.path === 'tap');
  if (w && t) console.log(`N=${n}: tap/whep total ${(t.totalCpuPerStreamSec / w.totalCpuPerStreamSec).toFixed(2)}, in-process ${(t.inProcessCpuPerStreamSec / Math.max(1e-9, w.inProcessCpuPerStreamSec)).toFixed(2)}`);
}
const ok = rows.filter((r) => r.keptUp).map((r) => r.streams);
console.log(`\nlargest stream count kept up with: ${ok.length ? Math.max(...ok) : 0} (N ${NS.join(', ')} × ${SESSIONS} session(s); ${SECONDS} s each; load ${load()})`);
process.exit(0);
