/**
 * Where the mix recorder's Node time goes (docs/recording-mix.md, "Benchmark: mix recording"): the same server and
 * publishers as part 1 of bench/mix, profiled with the V8 sampling profiler in windows without a recording, with
 * one, and without one again, each window's self time summed by where the code lives. The difference between the
 * windows is the recorder's share of this process.
 *
 *   node --import tsx bench/mix/profile.ts [--seconds S] [--windows K]
 */
import { Session } from 'node:inspector/promises';
import { startHarness } from '../../src/recorders/individual/testing/harness.ts';
import { sleep } from '../../src/recorders/individual/testing/media-checks.ts';
import { loadAverage, ownCpuSeconds } from './proc-cpu.ts';
import { BENCH_RECORDER_UID, benchMixStartRequest } from './mix-request.ts';
import { startPublishersProcess } from './publishers-process.ts';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const SECONDS = option('--seconds', 20);
const WINDOWS = option('--windows', 2);

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

function area(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : `(native) ${name}`;
  const nm = /node_modules\/([^/]+)\//.exec(url);
  if (nm) return `npm ${nm[1]}`;
  const src = /\/(src|bench)\/(.*)$/.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

/** Self time (ms) per area and per function over the profile. */
function selfTimes(p: Profile): { byArea: Map<string, number>; byFunction: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i]!)!;
    const ms = (p.timeDeltas[i + 1] ?? 0) / 1000;
    const { url, functionName, lineNumber } = node.callFrame;
    const a = area(url, functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + ms);
    const f = `${functionName || '(anonymous)'} ${a}:${lineNumber + 1}`;
    byFunction.set(f, (byFunction.get(f) ?? 0) + ms);
  }
  return { byArea, byFunction };
}

interface Window {
  readonly label: string;
  readonly cores: number;
  readonly byArea: Map<string, number>;
  readonly byFunction: Map<string, number>;
  readonly seconds: number;
}

async function profileWindow(session: Session, label: string): Promise<Window> {
  await session.post('Profiler.start');
  const cpu0 = ownCpuSeconds();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const cores = (ownCpuSeconds() - cpu0) / seconds;
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  return { label, cores, seconds, ...selfTimes(profile) };
}

function report(windows: readonly Window[]): void {
  const areas = new Set<string>();
  for (const w of windows) for (const a of w.byArea.keys()) areas.add(a);
  const coresOf = (w: Window, a: string): number => (w.byArea.get(a) ?? 0) / 1000 / w.seconds;
  console.log(`\nprocess CPU (cores): ${windows.map((w) => `${w.label} ${w.cores.toFixed(3)}`).join(', ')}`);
  console.log('self time by area (cores), areas ≥ 0.001 in any window:');
  console.log(`  ${'area'.padEnd(56)}${windows.map((w) => w.label.padStart(10)).join('')}`);
  const rows = [...areas].filter((a) => a !== '(idle)' && windows.some((w) => coresOf(w, a) >= 0.001));
  rows.sort((a, b) => coresOf(windows.at(-2) ?? windows[0]!, b) - coresOf(windows.at(-2) ?? windows[0]!, a));
  for (const a of rows) console.log(`  ${a.slice(0, 55).padEnd(56)}${windows.map((w) => coresOf(w, a).toFixed(4).padStart(10)).join('')}`);
  const recording = windows.filter((w) => w.label.startsWith('rec'));
  if (recording.length === 0) return;
  const top = new Map<string, number>();
  for (const w of recording) for (const [f, ms] of w.byFunction) top.set(f, (top.get(f) ?? 0) + ms / 1000 / w.seconds / recording.length);
  console.log('top functions while recording (cores):');
  for (const [f, c] of [...top].sort((a, b) => b[1] - a[1]).slice(0, 40)) if (!f.startsWith('(idle)')) console.log(`  ${c.toFixed(4)}  ${f}`);
}

async function main(): Promise<void> {
  const h = await startHarness({ mode: 'mix', channel: { idleTimeoutMs: 60_000 } });
  const cname = 'profile-mix-4';
  const plan = Array.from({ length: 4 }, (_, i) => ({
    uid: 1000 + i,
    color: ['red', 'blue', 'green', 'yellow'][i]!,
    toneHz: 300 + 60 * i,
    codec: i % 2 === 1 ? ('h264' as const) : ('vp8' as const),
    width: 640,
    height: 360,
  }));
  const publishers = await startPublishersProcess({ baseUrl: h.server.url, cname, fps: 15, frameCode: true, users: plan });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 1000) });
  const windows: Window[] = [];
  try {
    console.log(`mix profile: 4 publishers 640×360@15, ${SECONDS} s windows; load average ${loadAverage()}`);
    for (let k = 0; k < WINDOWS; k++) windows.push(await profileWindow(session, `idle${k + 1}`));
    const rec = await h.startRecording(cname, BENCH_RECORDER_UID, benchMixStartRequest(cname));
    await sleep(8000);
    for (let k = 0; k < WINDOWS; k++) windows.push(await profileWindow(session, `rec${k + 1}`));
    await h.api('POST', h.path(rec.resourceId, rec.sid, 'stop'), { cname, uid: BENCH_RECORDER_UID, clientRequest: {} });
    await sleep(2000);
    for (let k = 0; k < WINDOWS; k++) windows.push(await profileWindow(session, `after${k + 1}`));
    report(windows);
    console.log(`load average ${loadAverage()}`);
  } finally {
    session.disconnect();
    await publishers.stop();
    await h.close();
  }
}

await main();
process.exit(0);
