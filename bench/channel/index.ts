// Channel SFU benchmark: publishers x subscribers forwarded on this machine.
// For each shape it reports packets delivered / expected, the SFU process's CPU (process.cpuUsage, measured in
// the server process alone) and CPU per forwarded stream (one stream = one publisher's audio+video to one
// subscriber). Publishers are synthetic (ffmpeg VP8 640x360@15 + Opus); subscribers are werift peers in this
// process. Bounded: about 2 minutes. Usage: node --import tsx bench/channel/index.ts
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { startSyntheticPublisher, whepSubscribe, type SyntheticPublisher, type WhepSubscriber } from '../../src/channel/index.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';
const SHAPES: [publishers: number, subscribersEach: number][] = [
  [1, 1],
  [1, 4],
  [1, 8],
  [2, 4],
  [1, 16],
  [2, 8],
  [4, 8],
  [1, 32],
  [2, 16],
];
const WARMUP_MS = 3000;
const WINDOW_MS = 8000;
const DEADLINE = Date.now() + 170_000;

const root = new URL('../../', import.meta.url).pathname;
const server = spawn(process.execPath, ['--import', 'tsx', `${root}bench/channel/server.ts`], {
  stdio: ['pipe', 'pipe', 'inherit'],
  env: { ...process.env, TSX_TSCONFIG_PATH: `${root}tsconfig.json` },
});
const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
const next = async <T>() => JSON.parse((await lines.next()).value as string) as T;
const { url } = await next<{ url: string }>();
const cpu = async () => {
  server.stdin!.write('cpu\n');
  return next<{ cpu: NodeJS.CpuUsage; t: number }>();
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row {
  shape: string;
  streams: number;
  delivered: number;
  expected: number;
  ratio: number;
  sfuCores: number;
  msCpuPerStreamSecond: number;
}
const rows: Row[] = [];
let run = 0;
for (const [P, S] of SHAPES) {
  if (Date.now() + WARMUP_MS + WINDOW_MS + 8000 > DEADLINE) break;
  const cname = `bench-${run++}`;
  const pubs: SyntheticPublisher[] = [];
  const subs: { sub: WhepSubscriber; pub: SyntheticPublisher }[] = [];
  try {
    for (let p = 0; p < P; p++) {
      const uid = 1 + p;
      pubs.push(
        await startSyntheticPublisher({ baseUrl: url, appId: APP, cname, uid, token: buildRtcTokenWithUid(APP, CERT, cname, uid, 1, 600, 600) }),
      );
    }
    await Promise.all(pubs.map((p) => p.ready));
    for (let p = 0; p < P; p++) {
      for (let s = 0; s < S; s++) {
        const uid = 1000 + s; // one uid per viewer, one WHEP session per publisher
        const sub = await whepSubscribe({
          endpoint: `${url}/rtc/v1/apps/${APP}/channels/${cname}/whep?uid=${uid}&publisher=${p + 1}`,
          token: buildRtcTokenWithUid(APP, CERT, cname, uid, 2, 600, 600),
          keep: 0,
        });
        subs.push({ sub, pub: pubs[p]! });
      }
    }
    await Promise.all(subs.map((s) => s.sub.ready));
    await sleep(WARMUP_MS);
    const snap = () => subs.map(({ sub, pub }) => ({ got: sub.counts.audio + sub.counts.video, sent: pub.packets.audio + pub.packets.video }));
    const c0 = await cpu();
    const a = snap();
    await sleep(WINDOW_MS);
    const b = snap();
    const c1 = await cpu();
    const delivered = b.reduce((n, x, i) => n + x.got - a[i]!.got, 0);
    const expected = b.reduce((n, x, i) => n + x.sent - a[i]!.sent, 0);
    const cpuMs = (c1.cpu.user + c1.cpu.system - c0.cpu.user - c0.cpu.system) / 1000;
    const wallMs = c1.t - c0.t;
    const streams = P * S;
    rows.push({
      shape: `${P} pub x ${S} sub`,
      streams,
      delivered,
      expected,
      ratio: Math.round((delivered / expected) * 1000) / 1000,
      sfuCores: Math.round((cpuMs / wallMs) * 1000) / 1000,
      msCpuPerStreamSecond: Math.round((cpuMs / wallMs / streams) * 1000 * 10) / 10,
    });
    console.log(JSON.stringify(rows.at(-1)));
  } finally {
    await Promise.all(subs.map((s) => s.sub.close()));
    await Promise.all(pubs.map((p) => p.stop()));
  }
}
server.stdin!.write('exit\n');
console.table(rows);
const keeping = rows.filter((r) => r.ratio >= 0.99);
const best = keeping.sort((x, y) => y.streams - x.streams)[0];
console.log(`largest shape that keeps up (delivered/expected >= 0.99): ${best ? `${best.shape} (${best.streams} streams)` : 'none'}`);
process.exit(0);
