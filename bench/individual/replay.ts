/**
 * Individual recording at scale, publishers measured apart: the recorder's media graph as it runs with the
 * in-process tap (serialized RTP packets → TrackPipeline → ffmpeg slicer → closed slices on disk), fed from RTP
 * captured once from a 640x360@15 VP8 + Opus encode and replayed at real-time pace, looped with continuous
 * sequence numbers and timestamps. No encoder runs while measuring, so K users cost only what recording them
 * costs. The users are split among BENCH_WORKERS pacing processes, each holding its users' pipelines. Reports,
 * per recorded stream: slicer CPU (ffmpeg children from /proc, audio and video apart), the pacing processes' CPU
 * for pushing packets (minus their idle cost measured in the same run), slicer RSS and PSS, pacing health, and
 * whether every stream kept real time (closed slices cover ≥ 95 % of the wall time since its first packet).
 *
 * Each user count runs twice by default, without and with the recorder's loss repair in front of the slicers (jitter
 * buffer, keyframe wait, Opus concealment: what the recorder runs), and prints what the repair adds at 0 % loss as a
 * ratio of the two runs' totals.
 *
 *   node --import tsx bench/individual/replay.ts [USERS ...]   (default 5 25 50; BENCH_SECONDS=45;
 *                                                             BENCH_STREAM_MODE=original: audio only, Opus copied;
 *                                                             BENCH_OPUS_CHANNELS=2: a stereo publisher;
 *                                                             BENCH_WORKERS=4 pacing processes;
 *                                                             BENCH_REPAIR=off or on: that run alone)
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { TrackPipeline, type RtpTrackDescription } from '../../src/media/index.ts';
import { spawnChild } from '../../src/process/index.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 45);
const LOOP_SEC = 20;
const WARM_SEC = 5;
const ORIGINAL = process.env.BENCH_STREAM_MODE === 'original';
// Browsers send mono Opus unless the application asks for stereo (`stereo=1`), so mono is the common publisher.
const OPUS_CHANNELS = process.env.BENCH_OPUS_CHANNELS === '2' ? 2 : 1;
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
const USERS = counts.length > 0 ? counts : [5, 25, 50];
const TICK = 100;
// Pacing processes: one process pacing 5,000 packets a second got too small a CPU share at high load (the kernel
// shares CPU per thread, and 100 slicers are 100 threads or more), so the streams are split among W child
// processes, each with its users' pipelines (the project's spawn helper forks slicers from a main thread only).
const WORKERS = Math.max(1, Number(process.env.BENCH_WORKERS ?? 4));
/** Without the loss repair (the baseline) and with it, or one of them. */
const REPAIR_RUNS: readonly boolean[] = process.env.BENCH_REPAIR === 'off' ? [false] : process.env.BENCH_REPAIR === 'on' ? [true] : [false, true];
const VP8: RtpTrackDescription = { codec: 'VP8', payloadType: 96, clockRate: 90000 };
const OPUS: RtpTrackDescription = { codec: 'opus', payloadType: 111, clockRate: 48000, channels: 2, fmtp: 'minptime=10;useinbandfec=1' };

interface Captured {
  readonly atMs: number;
  readonly packet: Buffer;
}

/** LOOP_SEC s of RTP from one ffmpeg encode (as fast as it can), each packet timed by its RTP timestamp. */
async function capture(): Promise<{ audio: Captured[]; video: Captured[] }> {
  const sockets = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<ReturnType<typeof createSocket>>((resolve) => {
          const s = createSocket({ type: 'udp4', recvBufferSize: 32 * 2 ** 20 });
          s.bind(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const [vs, as] = sockets as [ReturnType<typeof createSocket>, ReturnType<typeof createSocket>];
  const got = { video: [] as Buffer[], audio: [] as Buffer[] };
  vs.on('message', (m) => got.video.push(m));
  as.on('message', (m) => got.audio.push(m));
  const ff = spawnChild('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-nostdin',
    '-f', 'lavfi', '-i', `testsrc2=s=640x360:r=15:d=${LOOP_SEC}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:d=${LOOP_SEC}`,
    '-map', '0:v', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '800k', '-g', '30', '-keyint_min', '30', '-pix_fmt', 'yuv420p',
    '-payload_type', '96', '-ssrc', '1111', '-f', 'rtp', `rtp://127.0.0.1:${(vs.address()).port}?pkt_size=1200`,
    '-map', '1:a', '-c:a', 'libopus', '-b:a', '48k', '-ar', '48000', '-ac', String(OPUS_CHANNELS),
    '-payload_type', '111', '-ssrc', '2222', '-f', 'rtp', `rtp://127.0.0.1:${(as.address()).port}?pkt_size=1200`,
  ], { stdio: ['ignore', 'ignore', 'inherit'] });
  await new Promise((r) => ff.once('exit', r));
  await new Promise((r) => setTimeout(r, 300));
  vs.close();
  as.close();
  const timed = (ps: Buffer[], rate: number): Captured[] => {
    // RTCP (SR, SDES, BYE: 200–207) on the same port is left out; our payload types with the marker are 224/239.
    const rtp = ps.filter((p) => p.length >= 12 && !(p[1]! >= 200 && p[1]! <= 207));
    if (rtp.length === 0) throw new Error(`nothing captured (${ps.length} datagrams)`);
    const ts0 = rtp[0]!.readUInt32BE(4);
    return rtp.map((p) => ({ atMs: (((p.readUInt32BE(4) - ts0) >>> 0) * 1000) / rate, packet: p }));
  };
  return { video: timed(got.video, 90000), audio: timed(got.audio, 48000) };
}

/** Replays one captured track into a pipeline, loop after loop, with continuous numbers. */
class Replayer {
  #next = 0;
  #loop = 0;
  recordedSec = 0;
  firstMs: number | undefined;
  constructor(
    readonly kind: 'audio' | 'video',
    private readonly packets: readonly Captured[],
    private readonly rate: number,
    readonly pipeline: TrackPipeline,
    /** Wall time of the first packet; set once every pipeline has started. */
    public t0: number,
  ) {}

  pump(now: number): void {
    for (;;) {
      const c = this.packets[this.#next]!;
      if (this.t0 + this.#loop * LOOP_SEC * 1000 + c.atMs > now) return;
      const p = Buffer.from(c.packet);
      p.writeUInt16BE((p.readUInt16BE(2) + this.#loop * this.packets.length) & 0xffff, 2);
      p.writeUInt32BE((p.readUInt32BE(4) + this.#loop * LOOP_SEC * this.rate) >>> 0, 4);
      this.firstMs ??= now;
      this.pipeline.push(p);
      if (++this.#next === this.packets.length) {
        this.#next = 0;
        this.#loop++;
      }
    }
  }
}

const procField = (text: string, name: string): number => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0);
interface Slicer {
  readonly pid: number;
  readonly kind: 'audio' | 'video';
}
/** This process's ffmpeg slicers, found once: a /proc scan per sample blocked the pacing loop for seconds at 100 streams. */
function findSlicers(parents: ReadonlySet<number>): Slicer[] {
  const out: Slicer[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.startsWith('ffmpeg') || !cmd.includes('slice_%05d')) continue;
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (!parents.has(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))) continue;
      out.push({ pid: Number(d), kind: cmd.includes('0:a') ? 'audio' : 'video' });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}
function cpuSec(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return Number.NaN;
  }
}
/** RSS and PSS (shared pages divided among the sharers), read once after the measured window: smaps_rollup is slow. */
function memoryKb(pid: number): { rssKb: number; pssKb: number } {
  try {
    return { rssKb: procField(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS'), pssKb: procField(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss') };
  } catch {
    return { rssKb: Number.NaN, pssKb: Number.NaN };
  }
}
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface WorkerInput {
  readonly users: readonly number[];
  /** The pipelines run the recorder's loss repair. */
  readonly repair: boolean;
  readonly work: string;
  readonly audio: Captured[];
  readonly video: Captured[];
}
interface PacingStats {
  ticks: number;
  late: number;
  maxGapMs: number;
}
interface StreamResult {
  readonly kind: 'audio' | 'video';
  readonly recordedSec: number;
  readonly firstMs: number | undefined;
}
type ToWorker = { type: 'go'; t0: number } | { type: 'end' };
type FromWorker = { type: 'started' } | { type: 'ended'; streams: StreamResult[]; pacing: PacingStats };

/** A pacing process: its users' pipelines, started, paced from `go`, stopped at `end`. */
async function pacingProcess(input: WorkerInput): Promise<void> {
  const port = { postMessage: (m: FromWorker) => process.send!(m), on: (e: 'message', f: (m: ToWorker) => void) => process.on(e, f) };
  const reps: Replayer[] = [];
  const asBuffers = (cs: Captured[]) => cs.map((c) => ({ atMs: c.atMs, packet: Buffer.from(c.packet as unknown as string, 'base64') }));
  const audio = asBuffers(input.audio);
  const video = asBuffers(input.video);
  for (const u of input.users) {
    for (const kind of ORIGINAL ? (['audio'] as const) : (['audio', 'video'] as const)) {
      const rep: Replayer = new Replayer(
        kind,
        kind === 'audio' ? audio : video,
        kind === 'audio' ? 48000 : 90000,
        new TrackPipeline(
          { track: kind === 'audio' ? OPUS : VP8, workDir: join(input.work, `u${u}-${kind}`), audioOutput: ORIGINAL ? 'copy' : 'transcode', repair: input.repair ? {} : undefined },
          { onSlice: (sl) => void (rep.recordedSec += sl.durationSec) },
        ),
        Number.POSITIVE_INFINITY,
      );
      reps.push(rep);
    }
  }
  await Promise.all(reps.map((r) => r.pipeline.start()));
  // Pacing health: ticks later than 50 ms mean the pacer, not the slicers, fell behind.
  const pacing: PacingStats = { ticks: 0, late: 0, maxGapMs: 0 };
  let last = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'go') {
      for (const r of reps) r.t0 = m.t0;
      timer = setInterval(() => {
        const now = Date.now();
        if (last > 0 && now >= m.t0) {
          const gap = now - last;
          pacing.ticks++;
          if (gap > 50) pacing.late++;
          pacing.maxGapMs = Math.max(pacing.maxGapMs, gap);
        }
        last = now;
        for (const r of reps) r.pump(now);
      }, 10);
      return;
    }
    clearInterval(timer);
    void Promise.all(reps.map((r) => r.pipeline.stop())).then(() => {
      const msg: FromWorker = { type: 'ended', streams: reps.map((r) => ({ kind: r.kind, recordedSec: r.recordedSec, firstMs: r.firstMs })), pacing };
      port.postMessage(msg);
    });
  });
  const started: FromWorker = { type: 'started' };
  port.postMessage(started);
}

if (process.env.BENCH_PACER) {
  const input = await new Promise<WorkerInput>((r) => process.once('message', (m) => r(m as WorkerInput)));
  await pacingProcess(input);
} else {
const captured = await capture();
console.log(`captured ${captured.video.length} video and ${captured.audio.length} audio packets (${LOOP_SEC} s, Opus ${OPUS_CHANNELS === 2 ? 'stereo' : 'mono'})`);
const rows: string[] = [];
/** Total core-seconds per stream-second, by user count and repair. */
const totals = new Map<string, number>();
for (const users of USERS) for (const repair of REPAIR_RUNS) {
  const loadBefore = load();
  const work = mkdtempSync(join(tmpdir(), 'reeltime-replay-'));
  const threads = Math.min(WORKERS, users);
  const workers = Array.from({ length: threads }, (_, w) => {
    // Packets go base64-encoded over the IPC channel (JSON).
    const enc = (cs: Captured[]) => cs.map((c) => ({ atMs: c.atMs, packet: c.packet.toString('base64') }));
    const input = { users: Array.from({ length: users }, (_, u) => u).filter((u) => u % threads === w), repair, work, audio: enc(captured.audio), video: enc(captured.video) };
    const child = fork(new URL(import.meta.url).pathname, [], { env: { ...process.env, BENCH_PACER: '1' }, execArgv: ['--import', 'tsx'] });
    child.send(input);
    return child;
  });
  const pacerPids = new Set(workers.map((w) => w.pid!));
  const pacersCpu = () => workers.reduce((a, w) => a + cpuSec(w.pid!), 0);
  const next = (w: ChildProcess) => new Promise<FromWorker>((r) => w.once('message', (m) => r(m as FromWorker)));
  await Promise.all(workers.map(next));
  // The pacing processes' idle cost (Node, timers; slicers up, no packets yet), subtracted below.
  const p0 = pacersCpu();
  await sleep(3000);
  const idlePerSec = (pacersCpu() - p0) / 3;
  // Pacing starts once all slicers are up (starting 100 under load took a minute): no backlog sent in a burst.
  const t0 = Date.now() + 2000;
  for (const w of workers) w.send({ type: 'go', t0 } satisfies ToWorker);
  // Steady state: ffmpeg's start-up (probing, codec setup) is left out by measuring from a snapshot after warm-up.
  await sleep(Math.max(0, t0 - Date.now()) + WARM_SEC * 1000);
  const found = findSlicers(pacerPids);
  const cpu0 = new Map(found.map((x) => [x.pid, cpuSec(x.pid)]));
  const c0 = pacersCpu();
  const w0 = Date.now();
  await sleep(SECONDS * 1000);
  const cpu1 = new Map(found.map((x) => [x.pid, cpuSec(x.pid)]));
  const wall = (Date.now() - w0) / 1000;
  // The pacing processes' memory (Node itself included: an upper bound of what the pipelines hold), per stream.
  const nodeRssKbPerStream = workers.reduce((a, w) => a + memoryKb(w.pid!).rssKb, 0) / (users * (ORIGINAL ? 1 : 2));
  // The pacing processes' CPU: the pipelines' pushes (what the recorder's process spends) plus the pacing itself.
  const inProcess = Math.max(0, pacersCpu() - c0 - idlePerSec * wall);
  const tEnd = Date.now();
  const stats = found.map((x) => ({ ...x, ...memoryKb(x.pid), cpuSec: cpu1.get(x.pid)! - cpu0.get(x.pid)! })).filter((x) => Number.isFinite(x.cpuSec));
  const ends = workers.map(next);
  for (const w of workers) w.send({ type: 'end' } satisfies ToWorker);
  const results = (await Promise.all(ends)).flatMap((m) => (m.type === 'ended' ? [m] : []));
  for (const w of workers) w.kill();
  const reps = results.flatMap((m) => m.streams);
  const pacing = results.reduce((a, m) => ({ ticks: a.ticks + m.pacing.ticks, late: a.late + m.pacing.late, maxGapMs: Math.max(a.maxGapMs, m.pacing.maxGapMs) }), { ticks: 0, late: 0, maxGapMs: 0 });
  const streams = reps.length;
  const sum = (k: 'audio' | 'video' | undefined, f: (x: (typeof stats)[number]) => number) => stats.filter((x) => !k || x.kind === k).reduce((a, x) => a + f(x), 0);
  const perStreamSec = (k: 'audio' | 'video') => sum(k, (x) => x.cpuSec) / (stats.filter((x) => x.kind === k).length * wall);
  const keptUp = reps.every((r) => r.firstMs !== undefined && r.recordedSec >= 0.95 * ((tEnd - r.firstMs) / 1000) - 0.5);
  const behind = reps.filter((r) => r.firstMs !== undefined && r.recordedSec < 0.95 * ((tEnd - r.firstMs) / 1000) - 0.5).length;
  const slicerPerStream = sum(undefined, (x) => x.cpuSec) / (Math.max(1, stats.length) * wall);
  const inProcPerStream = inProcess / (streams * wall);
  const row = {
    users,
    repair,
    streams,
    slicersMeasured: stats.length,
    wall: Math.round(wall),
    keptUp,
    behind,
    audioSlicer: perStreamSec('audio'),
    videoSlicer: ORIGINAL ? 0 : perStreamSec('video'),
    slicers: slicerPerStream,
    inProcess: inProcPerStream,
    total: slicerPerStream + inProcPerStream,
    rssMb: sum(undefined, (x) => x.rssKb) / 1024 / Math.max(1, stats.length),
    pssMb: sum(undefined, (x) => x.pssKb) / 1024 / Math.max(1, stats.length),
    nodeRssKbPerStream,
    loadBefore,
    loadAfter: load(),
    pacingLateTicks: pacing.late,
    pacingTicks: pacing.ticks,
    pacingMaxGapMs: pacing.maxGapMs,
  };
  console.log(JSON.stringify(row));
  const f4 = (x: number) => x.toFixed(4);
  totals.set(`${users}/${repair}`, row.total);
  rows.push(
    `| ${users} | ${repair ? 'on' : 'off'} | ${streams} | ${row.wall} s | ${keptUp ? 'yes' : `no (${behind} behind)`} | ${f4(row.audioSlicer)} | ${ORIGINAL ? '—' : f4(row.videoSlicer)} | ${f4(row.inProcess)} | ${f4(row.total)} | ${row.rssMb.toFixed(1)} / ${row.pssMb.toFixed(1)} | ${Math.round(nodeRssKbPerStream)} | ${loadBefore} → ${row.loadAfter} |`,
  );
  rmSync(work, { recursive: true, force: true });
}
console.log(`\nstreamMode ${ORIGINAL ? 'original (audio only, Opus copied)' : 'default (Opus→AAC, VP8 copied)'}; core-seconds per recorded stream-second`);
console.log('| users | loss repair | streams | wall | kept real time | audio slicer | video slicer | in-process push | total | slicer RSS / PSS MB | pacer RSS KB / stream (Node included) | load average |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
for (const users of USERS) {
  const [off, on] = [totals.get(`${users}/false`), totals.get(`${users}/true`)];
  if (off !== undefined && on !== undefined) console.log(`${users} users: with the loss repair ${(on / off).toFixed(3)} × the total without it, at 0 % loss`);
}
process.exit(0);
}
