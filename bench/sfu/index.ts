// bench:sfu: the same load on reeltime's SFU and on Janus 1.1.2 (VideoRoom, Debian's package), side by side in one
// run on this machine. Publishers are reeltime's synthetic replay publishers (640x360 VP8 @ 15 fps + Opus,
// werift); subscribers are werift peers in this process (WHEP on reeltime, VideoRoom subscribers on Janus). Per
// configuration and SFU: the SFU process's CPU (cores, from /proc: every thread), RTP packets forwarded per
// second (received by the subscribers), packets per second per core, subscriber-side delivery (received over
// what the publishers sent times the subscribers of each) and the video frame rate a subscriber sees.
// The subscribers share the machine with the SFU: on 2 cores the client side costs about as much as the server,
// so compare the two SFUs in the same run, not across machines. Usage: npm run bench:sfu
// (BENCH_CONFIGS=1,3 runs the first and third configuration only; BENCH_WINDOW_MS sets the measured window).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startSyntheticPublisher, whepSubscribe, type SyntheticPublisher } from '../../src/channel/index.ts';
import { processInfo } from '../../src/process/index.ts';
import { startJanus, JanusSession } from './janus.ts';
import { janusSubscribe, startWhipAdapter, type CountingSubscriber } from './janus-peers.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
/** Publishers, and subscribers each receiving every publisher. */
const CONFIGS: readonly [publishers: number, subscribers: number][] = [
  [1, 10],
  [1, 25],
  [1, 50],
  [4, 4],
  [8, 8],
];
const WARMUP_MS = 3000;
/** BENCH_CPU_PROF=<dir>: a V8 CPU profile of the reeltime process over each measured window (where the cost goes). */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? 8000);
const chosen = process.env.BENCH_CONFIGS?.split(',').map((n) => CONFIGS[Number(n) - 1]!) ?? CONFIGS;

interface Load {
  readonly publishers: SyntheticPublisher[];
  readonly subscribers: { readonly counts: () => { packets: number; frames: number }; readonly ready: Promise<void>; readonly close: () => Promise<void> }[];
}

interface Target {
  readonly name: string;
  readonly pid: number;
  /** A CPU profile of the SFU over the measured window (reeltime only: Janus is native code). */
  readonly profile?: { start(): Promise<void>; stop(file: string): Promise<void> };
  /** Publishes `p` synthetic publishers into `cname` and subscribes `s` viewers to each. */
  load(cname: string, p: number, s: number): Promise<Load>;
  close(): Promise<void>;
}

const publisher = (baseUrl: string, cname: string, uid: number) =>
  startSyntheticPublisher({ baseUrl, appId: APP, cname, uid, token: buildRtcTokenWithUid(APP, CERT, cname, uid, 1, 600, 600), mode: 'replay' });

async function reeltimeTarget(): Promise<Target> {
  const root = new URL('../../', import.meta.url).pathname;
  const server = spawn(process.execPath, ['--import', 'tsx', `${root}bench/channel/server.ts`], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, TSX_TSCONFIG_PATH: `${root}tsconfig.json` },
  });
  const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  const { url } = JSON.parse((await lines.next()).value as string) as { url: string };
  const ask = async (line: string) => {
    server.stdin!.write(`${line}\n`);
    await lines.next();
  };
  return {
    name: 'reeltime',
    pid: server.pid!,
    profile: { start: () => ask('profile-start'), stop: (file) => ask(`profile-stop ${file}`) },
    async load(cname, p, s) {
      const publishers = await Promise.all(Array.from({ length: p }, (_, i) => publisher(url, cname, 1 + i)));
      await Promise.all(publishers.map((x) => x.ready));
      const subscribers: Load['subscribers'] = [];
      for (let v = 0; v < s; v++) {
        for (let i = 0; i < p; i++) {
          const uid = 1000 + v;
          const sub = await whepSubscribe({
            endpoint: `${url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=${uid}&publisher=${1 + i}`,
            token: buildRtcTokenWithUid(APP, CERT, cname, uid, 2, 600, 600),
            keep: 0,
          });
          let frames = 0;
          sub.onRtp((kind, packet) => kind === 'video' && packet.header.marker && frames++);
          subscribers.push({ counts: () => ({ packets: sub.counts.audio + sub.counts.video, frames }), ready: sub.ready, close: sub.close });
        }
      }
      return { publishers, subscribers };
    },
    async close() {
      server.stdin!.write('exit\n');
      await new Promise((r) => server.once('exit', r));
    },
  };
}

async function janusTarget(maxPublishers: number): Promise<Target> {
  const janus = await startJanus();
  const session = await JanusSession.create(janus.api);
  const adapter = await startWhipAdapter(session, maxPublishers);
  return {
    name: 'janus',
    pid: janus.pid,
    async load(cname, p, s) {
      const publishers = await Promise.all(Array.from({ length: p }, (_, i) => publisher(adapter.url, cname, 1 + i)));
      await Promise.all(publishers.map((x) => x.ready));
      const subscribers: Load['subscribers'] = [];
      for (let v = 0; v < s; v++) {
        for (let i = 0; i < p; i++) {
          const sub: CountingSubscriber = await janusSubscribe(session, cname, 1 + i);
          subscribers.push({ counts: () => ({ ...sub.counts }), ready: sub.ready, close: sub.close });
        }
      }
      return { publishers, subscribers };
    },
    async close() {
      await session.destroy();
      await adapter.close();
      await janus.close();
    },
  };
}

interface Row {
  sfu: string;
  config: string;
  streams: number;
  sfuCores: number;
  forwardedPps: number;
  ppsPerCore: number;
  delivered: number;
  subscriberFps: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuSeconds = (pid: number) => processInfo(pid)?.cpuSeconds ?? Number.NaN;

async function measure(target: Target, p: number, s: number, run: number): Promise<Row> {
  const load = await target.load(`sfu-bench-${run}`, p, s);
  try {
    // Every subscriber connected (ICE and DTLS done) before the warm-up starts: a late one would count as loss.
    await Promise.all(load.subscribers.map((x) => x.ready));
    await sleep(WARMUP_MS);
    const sent = () => load.publishers.reduce((n, x) => n + x.packets.audio + x.packets.video, 0);
    const got = () => load.subscribers.map((x) => x.counts());
    const profileFile = PROFILE_DIR && target.profile ? join(PROFILE_DIR, `${target.name}-${p}x${s}.cpuprofile`) : undefined;
    if (profileFile) await target.profile!.start();
    const [c0, t0, s0, g0] = [cpuSeconds(target.pid), performance.now(), sent(), got()];
    await sleep(WINDOW_MS);
    const [c1, t1, s1, g1] = [cpuSeconds(target.pid), performance.now(), sent(), got()];
    if (profileFile) {
      await target.profile!.stop(profileFile);
      console.log(`profile: ${profileFile} (node --import tsx bench/sfu/profile-summary.ts ${profileFile})`);
    }
    if (process.env.BENCH_DEBUG) console.log(g1.map((x, i) => x.packets - g0[i]!.packets).join(' '), s1 - s0);
    const seconds = (t1 - t0) / 1000;
    const cores = (c1 - c0) / seconds;
    const packets = g1.reduce((n, x, i) => n + x.packets - g0[i]!.packets, 0);
    const frames = g1.reduce((n, x, i) => n + x.frames - g0[i]!.frames, 0);
    const expected = (s1 - s0) * s;
    const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
    return {
      sfu: target.name,
      config: `${p} pub x ${s} sub`,
      streams: p * s,
      sfuCores: round(cores),
      forwardedPps: Math.round(packets / seconds),
      ppsPerCore: Math.round(packets / seconds / Math.max(cores, 0.01)),
      delivered: round(packets / expected, 3),
      subscriberFps: round(frames / seconds / load.subscribers.length, 1),
    };
  } finally {
    await Promise.all(load.subscribers.map((x) => x.close()));
    await Promise.all(load.publishers.map((x) => x.stop()));
  }
}

/** BENCH_SFUS=reeltime (or janus): measure one side only. */
const only = process.env.BENCH_SFUS;
const rows: Row[] = [];
let run = 0;
for (const [p, s] of chosen) {
  // Alternate which SFU goes first, so neither always gets the warmer machine.
  const order = run % 2 === 0 ? [reeltimeTarget, () => janusTarget(p)] : [() => janusTarget(p), reeltimeTarget];
  for (const start of order.filter((_, i) => !only || (i === 0) === (only === (run % 2 === 0 ? 'reeltime' : 'janus')))) {
    const target = await start();
    try {
      const row = await measure(target, p, s, run);
      rows.push(row);
      console.log(JSON.stringify(row));
    } finally {
      await target.close();
    }
  }
  run++;
}
console.table(rows);
console.log('ratio (reeltime pps/core over janus pps/core) per configuration:');
for (const [p, s] of chosen) {
  const config = `${p} pub x ${s} sub`;
  const r = rows.find((x) => x.sfu === 'reeltime' && x.config === config);
  const j = rows.find((x) => x.sfu === 'janus' && x.config === config);
  if (r && j) console.log(`  ${config}: ${(r.ppsPerCore / j.ppsPerCore).toFixed(2)} (reeltime ${r.ppsPerCore}, janus ${j.ppsPerCore} packets/s per core)`);
}
process.exit(0);
