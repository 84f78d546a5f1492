// Runs the *.test.ts files under src/, packages/*/src and test/ (through tsx), in two lanes (which file is in which:
// scripts/test-lanes.mjs), each file either in a batch worker (many files one after another in one process, each in
// a suite of its own: scripts/test-batch/) or in a process of its own (REELTIME_TEST_BATCH, below):
//   fast   pure and in-process tests (real PostgreSQL, Redis, HTTP on loopback, but no child processes): many at once;
//          a fast-lane file that starts a child process fails (scripts/test-fast-lane-guard.mjs).
//   heavy  ffmpeg, Chromium, Xvfb, PulseAudio, other reeltime processes, real-time media: a few at once.
// Usage: node scripts/test.mjs [--lane=fast|heavy|all] [--list] [filter...]
//   no lane: both lanes (fast first), the files whose path contains one of the filters (all files without a filter).
//   `npm test` is the fast lane; `bash scripts/test.sh` (CI) is both.
// Concurrency: REELTIME_TEST_FAST_CONCURRENCY (default 6). The heavy lane runs at least 3 files at once and starts
// another (up to REELTIME_TEST_HEAVY_MAX, default 5) only while the CPU has been a quarter idle (ADMISSION): on a slow
// 2-core machine it is CPU-bound at 3 and admits no more, on a faster one its files mostly wait (ICE timeouts,
// recordings of N seconds) and more of them fit. A timing-sensitive file (scripts/test-lanes.mjs) starts beside one
// other file at most (two PAIRED ones: beside each other) and gets company (two files, a third, and two that mostly
// wait: LIGHT) only while the CPU has been a quarter idle since 10 s after the last start, all of them at nice 19;
// one that runs alone (RUNS_ALONE) gets only BACKGROUND files (no real-time bound) under SCHED_IDLE. While the CPU
// has been half idle (ADMISSION.veryIdle) a sensitive file gets two more companions, the next starts beside two, two
// of them (neither one that runs alone) may run beside each other. Past them, up to eight files while the CPU is a
// quarter idle. No two files start within a second.
// REELTIME_TEST_HEAVY_CONCURRENCY=N runs exactly N at once.
// REELTIME_TEST_FAST_ALONGSIDE=N (default 3 where chrt exists; 0: before the heavy one) runs the fast lane beside the heavy one in N
// batch workers under SCHED_IDLE. Each file's line in the log says when it started in
// its lane ("from N s").
// REELTIME_TEST_CPU_PROFILE_DIR=folder writes a V8 CPU profile of each file's process (not its children) there.
// A file still running after REELTIME_TEST_FILE_TIMEOUT_MS (default 180 s fast, 600 s heavy) is killed and failed.
// At the end: counts per lane, the ten slowest files and the failed ones; durations are kept in .test-times.json
// (not committed) so the next run starts the longest files first.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { BACKGROUND, BACKGROUND_COMPANY, HEAVY, LIGHT, LIGHT_COMPANY, PAIRED, RUNS_ALONE, TIMING_SENSITIVE } from './test-lanes.mjs';
import { buildServerBundle, buildTestFileBundle } from './test-server-bundle.mjs';
import { startIdleMeter } from './cpu-idle.mjs';

const root = new URL('..', import.meta.url).pathname;
const TIMES_FILE = join(root, '.test-times.json');
const GUARD = join(root, 'scripts', 'test-fast-lane-guard.mjs');
const CPU_REPORT = join(root, 'scripts', 'test-cpu.mjs');
const ASYNC_HOOK = join(root, 'scripts', 'test-async-hook.mjs');
const CPU_PROFILE_DIR = process.env.REELTIME_TEST_CPU_PROFILE_DIR;

function positiveInt(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    console.error(`${name} must be an integer of at least ${min}, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}
const CONCURRENCY = {
  fast: positiveInt('REELTIME_TEST_FAST_CONCURRENCY', 6),
  heavy: positiveInt('REELTIME_TEST_HEAVY_CONCURRENCY', 3),
};
// The heavy lane's admission (above): fixed when REELTIME_TEST_HEAVY_CONCURRENCY is set, else from 3 up to this.
const HEAVY_ADAPTIVE = !process.env.REELTIME_TEST_HEAVY_CONCURRENCY;
const HEAVY_MAX = positiveInt('REELTIME_TEST_HEAVY_MAX', 5);
const ADMISSION = {
  /** Another file starts only when the CPU was at least this idle over the window... */
  idle: 0.25,
  windowSeconds: 3,
  /**
   * ...and the last file started at least this long ago (its start's load shows by then). Short: with 5 s, the many
   * files of a few seconds at the lane's end could start no faster than one per 5 s.
   */
  settleMs: 2_000,
  /**
   * The same once no timing-sensitive file runs or waits: the lane's last two minutes were some fifty files of 1-20 s
   * started one per settleMs, 1.3 cores busy (session 29, fresh1). Their CPU shows within a second (most is loading
   * the bundle), and the window below still holds starts back when it does.
   */
  settleAfterChainMs: 1_000,
  /**
   * Between any two starts, even those the minimum or a sensitive file's company asks for: five files started in one
   * instant (each compiling its imports, launching Chromium or ffmpeg) starved one another on a slower machine
   * (session 19: two WHEP recordings lost 8 s of one kind, a CDN push never connected).
   */
  startGapMs: 1_000,
  /**
   * Beside a timing-sensitive file, since the last start: the CPU it takes shows only after its setup (Chromium,
   * encoders), and companions admitted while it looked idle starved once it ran (session 19: four within 34 s of the
   * mix recording's start, at 2 s). 10 s since session 23: with 15 s a sensitive file of a minute got four companions
   * at most, one every 15 s, and the machine stood two thirds idle beside the chain of them.
   */
  settleBesideSensitiveMs: 10_000,
  /**
   * "Very idle": at least this idle over `veryIdleWindowSeconds`. Then a sensitive file gets two more companions
   * (SENSITIVE_COMPANY_IF_VERY_IDLE, up to HEAVY_MAX_IF_VERY_IDLE files in all) and the next one starts beside
   * SENSITIVE_COMPANY_AT_ONCE_IF_VERY_IDLE files. Session 24's machine (AMD EPYC, 2 cores) stood half idle or more
   * through the chain of sensitive files (10 min of CPU over an 11 min heavy lane), the chain waiting 80 s in all for
   * its company to drain to one file, and the lane's last 145 s were the files that had found no room beside it. On a
   * machine whose CPU the chain keeps busy (sessions 19-23) this is never met and the rules above decide alone.
   */
  veryIdle: 0.5,
  veryIdleWindowSeconds: 5,
};
/**
 * How many other files a timing-sensitive file (scripts/test-lanes.mjs) shares the heavy lane with (LIGHT ones aside).
 * Two since session 17, when the others went from nice 5 to nice 19 (YIELD_NICE): heavy lane 12 min 46 s, green,
 * against 13 min 42-49 s with one. Session 18 tried three (with SENSITIVE_COMPANY_IF_IDLE, two LIGHT files and up to
 * six at once): heavy lane 9 min 45 s to 10 min 5 s, but two of four fresh-clone runs failed a PostgreSQL-outage test
 * (its recorder's WHEP peer failed on loopback 5 s into its session in one); two and five: 10 min 51 s, green.
 */
const SENSITIVE_COMPANY = 2;
/**
 * One more file beside a timing-sensitive one (RUNS_ALONE aside) while the CPU has been a quarter idle (ADMISSION):
 * the heavy lane used one of the two cores on average (12 min of CPU over 12 min in a fresh-clone run of session 18),
 * its length the sum of its files' lengths over about three at once, and the sensitive files (8 min of it) held the
 * lane at three.
 */
const SENSITIVE_COMPANY_IF_IDLE = 1;
/**
 * BACKGROUND companions a timing-sensitive file gets whatever the CPU's idleness (the rest of its company waits for
 * idle), and the files at most beside which the next one starts: started beside three that the previous one's idle
 * moments had admitted, Chromium under a bandwidth cap lost 4.4 % of its packets in the queue (bound 2 %) and those
 * three starved at nice 19 (session 19).
 */
const SENSITIVE_COMPANY_AT_ONCE = 1;
/**
 * While the CPU is very idle (ADMISSION.veryIdle): two more companions (up to seven files), and the next sensitive
 * file beside two. One more (six files) in session 24's fresh2 and fresh3 still left the lane's last four minutes to
 * the files that had found no room beside the chain.
 */
const SENSITIVE_COMPANY_IF_VERY_IDLE = 2;
const SENSITIVE_COMPANY_AT_ONCE_IF_VERY_IDLE = 2;
const HEAVY_MAX_IF_VERY_IDLE = HEAVY_MAX + 2;
/** Files at once once no timing-sensitive file runs or waits (the lane's last part), while the CPU has time to spare. */
const HEAVY_MAX_AFTER_CHAIN = positiveInt('REELTIME_TEST_HEAVY_MAX_AFTER_CHAIN', HEAVY_MAX + 3);
/**
 * The CPU priority of every heavy file but the timing-sensitive ones (and of the fast lane beside the heavy one):
 * the lowest, so a sensitive file gets nearly all of a contested core (weight 1024 against 15) and the others the rest.
 */
const YIELD_NICE = '19';
/**
 * Heavy files that failed beside others run once more at the lane's end, one at a time with nothing beside them, when
 * no more than this many failed (more is a breakage, not a crowded CPU). A file that then passes is reported as such
 * and does not fail the run; its first failure is still printed. Why: on the slow 2-core machines of sessions 19-25,
 * every whole-suite run failed two to five different media files (a WHEP gap, slices late after a hold, a Chromium
 * tile not yet drawn) that passed alone, so a red run said more about the machine than about the code. 0: no retry.
 */
const RETRY_ALONE_MAX = positiveInt('REELTIME_TEST_RETRY_ALONE', 8, 0);
// Which lanes run their files in batch workers (many files per process): REELTIME_TEST_BATCH=fast (default), all, or
// none (each file in its own process, as a file run alone).
const BATCH = process.env.REELTIME_TEST_BATCH || 'fast';
if (!['fast', 'all', 'none'].includes(BATCH)) {
  console.error(`REELTIME_TEST_BATCH must be fast, all or none, got ${BATCH}`);
  process.exit(2);
}
const BATCHED = { fast: BATCH !== 'none', heavy: BATCH === 'all' };
// Both lanes at once: the fast lane runs beside the heavy one, this many batch workers, under SCHED_IDLE (`chrt
// --idle`): it gets only the CPU no heavy file wants, and the heavy lane's first files (those that run alone, about
// half a core of two for two minutes) leave more than it needs (a minute of CPU). Where chrt is missing it runs first
// (at nice 5 beside five to eight heavy files, real-time heavy files failed in 4 of 6 fresh-clone runs). Default 3
// again since session 24: session 23 made it opt-in after the individual loss test lost 23 and 3 video packets for
// good beside it in two of six fresh-clone runs, but the same loss came without it (13 packets, fresh3 of session
// 24; 2-7 in three of four runs of the file alone): a recorder's stream started at a repaired keyframe whose later
// packets had gone by, fixed in webrtc/gated-forward.ts. 0: the fast lane first, then the heavy one.
const CHRT_AVAILABLE = existsSync('/usr/bin/chrt') || existsSync('/bin/chrt');
const FAST_ALONGSIDE = positiveInt('REELTIME_TEST_FAST_ALONGSIDE', CHRT_AVAILABLE ? 3 : 0, 0);
// A file still running after this long is killed and counted as failed (one override for both lanes).
const FILE_TIMEOUT_MS = {
  fast: positiveInt('REELTIME_TEST_FILE_TIMEOUT_MS', 180_000),
  heavy: positiveInt('REELTIME_TEST_FILE_TIMEOUT_MS', 600_000),
};

// ---- which files, which lane ----
const files = [];
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    if (e === 'node_modules' || e === 'dist' || e.startsWith('.')) continue;
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (e.endsWith('.test.ts')) files.push(relative(root, p));
  }
}
walk(join(root, 'src'));
walk(join(root, 'test'));
for (const pkg of readdirSync(join(root, 'packages'))) walk(join(root, 'packages', pkg, 'src'));
files.sort();

const heavySet = new Set(HEAVY);
const stale = HEAVY.filter((f) => !files.includes(f));
if (stale.length > 0) {
  console.error(`scripts/test-lanes.mjs lists test files that do not exist:\n  ${stale.join('\n  ')}`);
  process.exit(2);
}
const laneOf = (f) => (heavySet.has(f) ? 'heavy' : 'fast');

let lane = 'all';
let listOnly = false;
const filters = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith('--lane=')) lane = arg.slice('--lane='.length);
  else if (arg === '--list') listOnly = true;
  else if (arg.startsWith('--')) {
    console.error(`unknown option ${arg}`);
    process.exit(2);
  } else filters.push(arg);
}
if (!['fast', 'heavy', 'all'].includes(lane)) {
  console.error(`--lane must be fast, heavy or all, got ${lane}`);
  process.exit(2);
}
const selected = files.filter(
  (f) => (filters.length === 0 || filters.some((x) => f.includes(x))) && (lane === 'all' || laneOf(f) === lane),
);
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
if (listOnly) {
  for (const f of selected) console.log(`${laneOf(f).padEnd(5)}  ${f}`);
  process.exit(0);
}

// Longest first (from the last run's durations); files never timed first of all, heavy ones in the list's order.
let times = {};
try {
  times = JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
} catch {
  times = {};
}
function schedule(list) {
  const unknown = list.filter((f) => times[f] === undefined);
  unknown.sort((a, b) => (heavySet.has(a) && heavySet.has(b) ? HEAVY.indexOf(a) - HEAVY.indexOf(b) : 0));
  const known = list.filter((f) => times[f] !== undefined).sort((a, b) => times[b] - times[a]);
  // The timing-sensitive files first: each runs beside a few other files at most (runAdmitted), so they run early, one
  // after another, and the rest of the lane then fills the machine. Those that run alone first of all: at the lane's
  // start nothing has to end before they can begin (later, the lane stood idle while it drained).
  const ordered = [...unknown, ...known];
  return [
    ...ordered.filter((f) => RUNS_ALONE.has(f)),
    ...ordered.filter((f) => TIMING_SENSITIVE.has(f) && !RUNS_ALONE.has(f) && !PAIRED.has(f)),
    // Together, so that each finds another to run beside (PAIRED).
    ...ordered.filter((f) => PAIRED.has(f)),
    ...ordered.filter((f) => !TIMING_SENSITIVE.has(f)),
  ];
}

// ---- running ----
const NICE_AVAILABLE = existsSync('/usr/bin/nice') || existsSync('/bin/nice');
const COUNT_KEYS = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const results = [];
let interrupted = false;
const running = new Set();

const noCounts = () => Object.fromEntries(COUNT_KEYS.map((k) => [k, 0]));

/** One file's result: its block in the log and its row for the summary. */
function report({ file, lane, how, ms, cpuMs, loopMs, ok, why, counts, text, startedMs, retry = false }) {
  // When it started in its lane: a timeline of the lane can be read back from the log.
  const from = startedMs === undefined ? '' : `, from ${(startedMs / 1000).toFixed(0)} s`;
  process.stdout.write(
    `\n▶ ${file} [${how}] ${(ms / 1000).toFixed(1)} s, ${(cpuMs / 1000).toFixed(1)} s CPU${from}${ok ? '' : ` FAILED (${why})`}\n${text.trimEnd()}\n`,
  );
  results.push({ file, lane, ms, cpuMs, loopMs, ok, counts, text: ok ? '' : text, retry });
}

/**
 * `background`: under SCHED_IDLE, beside a file that runs alone (BACKGROUND in scripts/test-lanes.mjs). `retry`: once
 * more, alone, after failing beside others (RETRY_ALONE_MAX).
 */
function runFile(file, fileLane, { background = false, retry = false } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    // --test-force-exit: a file whose tests (and after hooks) are done ends then, even with a timer or socket still
    // open (werift's peer timers kept dtls-guard's process alive 33 s after its 2 s test).
    // A heavy file runs from its bundle when the run built one (fileBundles, below): no tsx hooks in its process.
    const bundled = fileBundles.get(file);
    const entry = bundled ? ['--enable-source-maps', bundled] : ['--import', 'tsx', file];
    const args = [...(CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : []), '--import', ASYNC_HOOK, '--import', CPU_REPORT, ...(fileLane === 'fast' ? ['--import', GUARD] : []), '--test-reporter=spec', '--test-force-exit', ...entry];
    // Heavy files other than the timing-sensitive ones yield the CPU to those (scripts/test-lanes.mjs).
    const yieldCpu = fileLane === 'heavy' && !TIMING_SENSITIVE.has(file) && NICE_AVAILABLE;
    const [command, commandArgs] = background
      ? ['chrt', ['--idle', '0', 'nice', '-n', YIELD_NICE, process.execPath, ...args]]
      : yieldCpu
        ? ['nice', ['-n', YIELD_NICE, process.execPath, ...args]]
        : [process.execPath, args];
    const child = spawn(command, commandArgs, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
        REELTIME_TEST_LANE: fileLane,
        REELTIME_TEST_FILE: file,
      },
    });
    running.add(child);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let timedOut = false;
    const watchdog = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, FILE_TIMEOUT_MS[fileLane]);
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      running.delete(child);
      const ms = performance.now() - started;
      const counts = noCounts();
      let reported = false;
      for (const m of output.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
        counts[m[1]] = Number(m[2]);
        reported = true;
      }
      const cpu = output.match(/^ℹ cpu_ms (\d+)$/m);
      const cpuMs = cpu ? Number(cpu[1]) : 0;
      const loop = output.match(/^ℹ loop_delay_max_ms (\d+)$/m);
      const loopMs = loop ? Number(loop[1]) : undefined;
      const ok = code === 0 && !timedOut && reported;
      const why = timedOut ? `timed out after ${FILE_TIMEOUT_MS[fileLane]} ms` : !reported ? 'no test report' : `exit ${code ?? signal}`;
      const how = retry ? `${fileLane}, alone after failing beside others` : fileLane;
      report({ file, lane: fileLane, how, ms, cpuMs, loopMs, ok, why, counts, text: output, startedMs: started - laneStartedAt[fileLane], retry });
      resolve();
    });
  });
}

// A batch worker (scripts/test-batch/worker.mjs) runs fast-lane files one after another in one process, so the
// packages they all load are loaded once per worker. It takes files from the queue until it is empty; a worker that
// dies or overruns a file's time fails that file only, and the slot starts a new worker for the rest.
const WORKER = join(root, 'scripts', 'test-batch', 'worker.mjs');
const FILE_REPORTER = join(root, 'scripts', 'test-batch', 'reporter.mjs');
function runBatchWorker(queue, fileLane) {
  return new Promise((resolve) => {
    const args = ['--import', 'tsx', '--import', ASYNC_HOOK, ...(fileLane === 'fast' ? ['--import', GUARD] : [])];
    args.push('--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${FILE_REPORTER}`);
    args.push('--test-reporter-destination=stderr', WORKER);
    // Beside the heavy lane, the fast lane takes only the CPU the heavy files leave (SCHED_IDLE, FAST_ALONGSIDE).
    const [command, commandArgs] = alongside
      ? CHRT_AVAILABLE
        ? ['chrt', ['--idle', '0', process.execPath, ...args]]
        : ['nice', ['-n', YIELD_NICE, process.execPath, ...args]]
      : [process.execPath, args];
    const child = spawn(command, commandArgs, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        TSX_TSCONFIG_PATH: join(root, 'tsconfig.json'),
        REELTIME_TEST_LANE: fileLane,
        // The worker's own bound per file (a suite timeout), a little inside the runner's watchdog.
        REELTIME_TEST_FILE_TIMEOUT_MS: String(FILE_TIMEOUT_MS[fileLane] - 5_000),
      },
    });
    running.add(child);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let current = null; // { file, started, outputFrom, done? }
    let watchdog = null;
    const finish = (ok, why, cpuMs, counts) => {
      clearTimeout(watchdog);
      const { file, started, outputFrom } = current;
      current = null;
      const ms = performance.now() - started;
      const text = output.slice(outputFrom).replace(/^ℹ file_result .*\n/gm, '');
      report({ file, lane: fileLane, how: `${fileLane}, batch`, ms, cpuMs, ok, why, counts, text });
    };
    const next = () => {
      if (queue.length === 0 || interrupted) {
        child.send({ end: true });
        // Whatever a file left open (timers, sockets) must not keep the worker: its results are all in.
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
        return;
      }
      current = { file: queue.shift(), started: performance.now(), outputFrom: output.length };
      watchdog = setTimeout(() => {
        finish(false, `timed out after ${FILE_TIMEOUT_MS[fileLane]} ms`, 0, noCounts());
        child.kill('SIGKILL');
      }, FILE_TIMEOUT_MS[fileLane]);
      child.send({ file: current.file });
    };
    // The file reporter's line and the worker's { done } travel apart: a file ends when both have come.
    const tryFinish = () => {
      if (current?.done === undefined) return;
      const line = [...output.slice(current.outputFrom).matchAll(/^ℹ file_result (.*)$/gm)]
        .map((m) => JSON.parse(m[1]))
        .find((r) => r.file === current.file);
      if (line === undefined) return;
      const { cpuMs, crashed } = current.done;
      finish(line.ok && crashed === undefined, crashed ? `worker error: ${crashed}` : 'a test failed', cpuMs, line.counts);
      next();
    };
    child.stderr.on('data', () => setImmediate(tryFinish));
    child.on('message', (msg) => {
      if (msg.ready) next();
      else if (msg.done !== undefined && current?.file === msg.done) {
        current.done = msg;
        tryFinish();
      }
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      if (current !== null) finish(false, `worker ended: exit ${code ?? signal}`, 0, noCounts());
      resolve();
    });
  });
}

const peak = { fast: 0, heavy: 0 };

/** When each lane started (performance.now()). */
const laneStartedAt = { fast: 0, heavy: 0 };

async function runLane(fileLane, list) {
  const queue = schedule(list);
  const started = performance.now();
  laneStartedAt[fileLane] = started;
  if (fileLane === 'heavy' && HEAVY_ADAPTIVE && !BATCHED.heavy) await runAdmitted(queue, fileLane);
  else {
    peak[fileLane] = Math.min(CONCURRENCY[fileLane], queue.length);
    const workers = Array.from({ length: peak[fileLane] }, async () => {
      while (queue.length > 0 && !interrupted) {
        if (BATCHED[fileLane]) await runBatchWorker(queue, fileLane);
        else await runFile(queue.shift(), fileLane);
      }
    });
    await Promise.all(workers);
  }
  return performance.now() - started;
}

/** Files in processes of their own, CONCURRENCY at once and more while the CPU has time to spare (ADMISSION). */
async function runAdmitted(queue, fileLane) {
  const meter = startIdleMeter();
  /** The running files, by their run. */
  const active = new Map();
  let lastStart = Number.NEGATIVE_INFINITY;
  /** The running timing-sensitive files, by their run. */
  const sensitive = new Map();
  /** The files started under SCHED_IDLE beside a RUNS_ALONE one, by their run. */
  const background = new Map();
  const backgroundQueued = () => queue.findIndex((f) => BACKGROUND.has(f));
  const backgroundAt = () => (CHRT_AVAILABLE && background.size < BACKGROUND_COMPANY ? backgroundQueued() : -1);
  /** A RUNS_ALONE file runs: whatever starts now starts under SCHED_IDLE. */
  const aloneRunning = () => [...sensitive.values()].some((f) => RUNS_ALONE.has(f));
  /** How many other files (LIGHT ones aside) a timing-sensitive file may run beside. */
  const companyOf = (file) => (RUNS_ALONE.has(file) ? 0 : SENSITIVE_COMPANY);
  /** How many LIGHT files it may run beside on top of that: none beside one that runs alone. */
  const lightCompanyOf = (file) => (RUNS_ALONE.has(file) ? 0 : LIGHT_COMPANY);
  const lightRunning = () => [...active.values()].filter((f) => LIGHT.has(f)).length;
  /** Running files that count against a timing-sensitive file's company (LIGHT ones do not, up to LIGHT_COMPANY). */
  const heavyCompany = () => active.size - sensitive.size - Math.min(lightRunning(), LIGHT_COMPANY);
  /** The CPU has had time to spare since the last start showed its load (ADMISSION). */
  const idleEnough = (settleMs = ADMISSION.settleMs) => {
    if (performance.now() - lastStart < settleMs) return false;
    const idle = meter.idleFraction(ADMISSION.windowSeconds);
    return idle !== undefined && idle >= ADMISSION.idle;
  };
  /** Very idle since the last start showed its load (ADMISSION.veryIdle). */
  const veryIdle = () =>
    performance.now() - lastStart >= ADMISSION.settleBesideSensitiveMs && (meter.idleFraction(ADMISSION.veryIdleWindowSeconds) ?? 0) >= ADMISSION.veryIdle;
  /**
   * Whether a timing-sensitive file could run beside what runs now: BACKGROUND files aside, nothing for one that runs
   * alone, one file at most for the others (SENSITIVE_COMPANY_AT_ONCE) and the LIGHT files it may have anyway (up to
   * LIGHT_COMPANY: the chain waited a minute for two of them to end in session 23). The chain then waits for the
   * company its previous file's idle moments admitted, which uses the CPU meanwhile.
   */
  const roomFor = (file, very) =>
    RUNS_ALONE.has(file)
      ? active.size - background.size === 0
      : active.size - background.size - Math.min(lightRunning(), LIGHT_COMPANY) <= (very ? SENSITIVE_COMPANY_AT_ONCE_IF_VERY_IDLE : SENSITIVE_COMPANY_AT_ONCE);
  /** The queue index of the file to start now, or -1 to wait. */
  const next = () => {
    const waiting = queue.some((f) => TIMING_SENSITIVE.has(f));
    const otherAt = queue.findIndex((f) => !TIMING_SENSITIVE.has(f));
    const lightAt = queue.findIndex((f) => LIGHT.has(f));
    // A file that measures real-time behaviour against a bound runs beside SENSITIVE_COMPANY other files at most (at
    // nice 19), and beside no other such file (but two PAIRED ones, test-lanes.mjs, beside each other): at 5 at once,
    // the loss test's 5 % group kept 89 % of its frames in one whole run (99.5 %
    // alone and at 3); on a slower machine (23.9 min of heavy-lane CPU against 12-15), three at once failed four of
    // them (Chromium's audio under loss, the mix's regions, an A/V pair over 200 ms). Those in RUNS_ALONE run with
    // nothing beside them but BACKGROUND files under SCHED_IDLE (the loss test kept 72 % of a group's frames with a
    // LIGHT file beside it); the others also beside up to LIGHT_COMPANY files that mostly wait (LIGHT). All company
    // but BACKGROUND files starts only while the CPU is a quarter idle. While one waits for its turn, only LIGHT files
    // start, and only when the waiting one could run beside them.
    if (sensitive.size > 0) {
      const files = [...sensitive.values()];
      const company = Math.min(...files.map(companyOf));
      if (aloneRunning()) return backgroundAt();
      // Company only while the CPU has been a quarter idle, but for files with no real-time bound (BACKGROUND): on a
      // machine twice as slow, companions at nice 19 beside a busy sensitive file starved (session 19: beside the mix
      // recording alone, a capture's CDN push not connected within 60 s; beside four, 8 s gaps in WHEP recordings).
      const tolerantAt = backgroundQueued();
      if (active.size - sensitive.size < SENSITIVE_COMPANY_AT_ONCE && tolerantAt >= 0) return tolerantAt;
      if (!idleEnough(ADMISSION.settleBesideSensitiveMs)) return -1;
      const very = veryIdle();
      if (active.size >= (very ? HEAVY_MAX_IF_VERY_IDLE : HEAVY_MAX)) return -1;
      // A second PAIRED file beside a PAIRED one, as a sensitive file starts: beside one other file at most.
      const pairAt = sensitive.size === 1 && PAIRED.has(files[0]) ? queue.findIndex((f) => PAIRED.has(f)) : -1;
      if (pairAt >= 0 && heavyCompany() <= SENSITIVE_COMPANY_AT_ONCE) return pairAt;
      // While the CPU is very idle, any two sensitive files (neither one that runs alone) beside each other: on session
      // 24's machine each of them used a third of a core or less but Opus FEC (0.6), and the chain of them one after
      // another was the heavy lane's first eight minutes.
      const veryPairAt = sensitive.size === 1 && very ? queue.findIndex((f) => TIMING_SENSITIVE.has(f) && !RUNS_ALONE.has(f)) : -1;
      if (veryPairAt >= 0 && heavyCompany() <= SENSITIVE_COMPANY_AT_ONCE_IF_VERY_IDLE) return veryPairAt;
      if (lightRunning() < Math.min(...files.map(lightCompanyOf)) && lightAt >= 0) return lightAt;
      // Two sensitive files share one company: the second counts as one of it.
      const more = SENSITIVE_COMPANY_IF_IDLE + (very ? SENSITIVE_COMPANY_IF_VERY_IDLE : 0);
      return otherAt >= 0 && heavyCompany() + sensitive.size - 1 < company + more ? otherAt : -1;
    }
    if (waiting) {
      const very = veryIdle();
      const sensitiveAt = queue.findIndex((f) => TIMING_SENSITIVE.has(f) && roomFor(f, very));
      if (sensitiveAt >= 0) return sensitiveAt;
      const first = queue.find((f) => TIMING_SENSITIVE.has(f));
      return lightRunning() < lightCompanyOf(first) && idleEnough(ADMISSION.settleBesideSensitiveMs) ? lightAt : -1;
    }
    if (active.size < CONCURRENCY[fileLane]) return otherAt;
    // Past the chain of sensitive files, up to HEAVY_MAX_AFTER_CHAIN while the CPU is a quarter idle: the files left
    // then mostly wait (recordings of N seconds, Chromium pages), each at nice 19 beside its equals, and at five to
    // seven at once the lane's last four minutes used 1.0-1.4 cores (session 24).
    return active.size < HEAVY_MAX_AFTER_CHAIN && idleEnough(ADMISSION.settleAfterChainMs) ? otherAt : -1;
  };
  while ((queue.length > 0 || active.size > 0) && !interrupted) {
    const at = queue.length > 0 && performance.now() - lastStart >= ADMISSION.startGapMs ? next() : -1;
    if (at >= 0) {
      const [file] = queue.splice(at, 1);
      const alone = aloneRunning();
      const run = runFile(file, fileLane, { background: alone }).then(() => {
        active.delete(run);
        sensitive.delete(run);
        background.delete(run);
      });
      active.set(run, file);
      if (alone) background.set(run, file);
      if (TIMING_SENSITIVE.has(file)) sensitive.set(run, file);
      lastStart = performance.now();
      peak[fileLane] = Math.max(peak[fileLane], active.size);
      continue;
    }
    await Promise.race([...active.keys(), new Promise((r) => setTimeout(r, ADMISSION.startGapMs))]);
  }
  await Promise.all(active.keys());
  meter.stop();
}

process.on('SIGINT', () => {
  interrupted = true;
  for (const c of running) c.kill('SIGTERM');
});

// Test files write their databases, spools and slices under TMPDIR. On a RAM file system (/dev/shm) SQLite's commits
// and the spool's fsyncs cost nothing, which is not what any test measures: the users API's 10,000 requests took 93 s
// on disk and 53 s there. REELTIME_TEST_TMPDIR chooses another place; the directory is removed at the end.
const TEST_TMP_PARENT = process.env.REELTIME_TEST_TMPDIR || (existsSync('/dev/shm') ? '/dev/shm' : undefined);
let testTmp;
if (TEST_TMP_PARENT !== undefined) {
  testTmp = mkdtempSync(join(TEST_TMP_PARENT, 'reeltime-test-'));
  // tsx keeps its compiled files in <tmpdir>/tsx-<uid>: keep using the usual one, or every run would start cold.
  const tsxCache = `tsx-${process.getuid?.() ?? 0}`;
  mkdirSync(join(tmpdir(), tsxCache), { recursive: true });
  symlinkSync(join(tmpdir(), tsxCache), join(testTmp, tsxCache));
  process.env.TMPDIR = testTmp;
  process.on('exit', () => rmSync(testTmp, { recursive: true, force: true }));
}

// BACKGROUND files run under SCHED_IDLE, which may give them no CPU for many seconds: one that sends or waits for
// real-time media there fails now and then (session 24's CI: a CLI publisher's viewer got no packet in 30 s). Refuse
// the list rather than find it out in a red run.
const REAL_TIME_MEDIA = /\b(whipPublish|whepSubscribe|startSyntheticPublisher|RTCPeerConnection)\b|'publish', '--server'/;
const backgroundWithMedia = [...BACKGROUND].filter((f) => existsSync(join(root, f)) && REAL_TIME_MEDIA.test(readFileSync(join(root, f), 'utf8')));
if (backgroundWithMedia.length > 0) {
  console.error(`scripts/test-lanes.mjs: BACKGROUND files must not carry real-time media (SCHED_IDLE): ${backgroundWithMedia.join(', ')}`);
  process.exit(2);
}

const wallStarted = performance.now();
const laneLists = { fast: selected.filter((f) => laneOf(f) === 'fast'), heavy: selected.filter((f) => laneOf(f) === 'heavy') };
// Tests that start reeltime as a process of its own start this bundle of the sources (REELTIME_TEST_SERVER_BUNDLE=0:
// bin/reeltime.mjs through tsx, as a user runs it).
if (laneLists.heavy.length > 0 && process.env.REELTIME_TEST_SERVER_BUNDLE !== '0') {
  const bundle = await buildServerBundle();
  process.env.REELTIME_TEST_SERVER_BUNDLE = bundle;
  process.on('exit', () => {
    rmSync(dirname(bundle), { recursive: true, force: true });
  });
} else delete process.env.REELTIME_TEST_SERVER_BUNDLE;
// The heavy files run from a bundle of them (scripts/test-server-bundle.mjs says why; REELTIME_TEST_FILE_BUNDLE=0:
// from the sources through tsx). Batched files (REELTIME_TEST_BATCH=all) run from the sources.
let fileBundles = new Map();
if (laneLists.heavy.length > 0 && !BATCHED.heavy && process.env.REELTIME_TEST_FILE_BUNDLE !== '0') {
  const { dir, bundled } = await buildTestFileBundle(laneLists.heavy);
  fileBundles = bundled;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}
const laneMs = {};
const alongside = FAST_ALONGSIDE > 0 && laneLists.fast.length > 0 && laneLists.heavy.length > 0;
if (alongside) {
  CONCURRENCY.fast = FAST_ALONGSIDE;
  // The heavy lane's first files start first: they are the run's critical path.
  const heavy = runLane('heavy', laneLists.heavy);
  const fast = runLane('fast', laneLists.fast);
  laneMs.fast = await fast;
  laneMs.heavy = await heavy;
} else {
  for (const l of ['fast', 'heavy']) {
    if (laneLists[l].length > 0) laneMs[l] = await runLane(l, laneLists[l]);
  }
}
// The heavy files that failed beside others, once more each, alone (RETRY_ALONE_MAX).
const failedBeside = results.filter((r) => !r.ok && r.lane === 'heavy');
const retried = [];
if (!interrupted && failedBeside.length > 0 && failedBeside.length <= RETRY_ALONE_MAX && !BATCHED.heavy) {
  console.log(`\n── ${failedBeside.length} heavy file(s) failed beside others: each once more, alone ──`);
  const retryStarted = performance.now();
  for (const first of failedBeside) {
    if (interrupted) break;
    await runFile(first.file, 'heavy', { retry: true });
    retried.push({ first, again: results.at(-1) });
  }
  laneMs.heavy += performance.now() - retryStarted;
}
/** First runs that a run alone superseded: each retried file counts once, by that run. */
const retriedFirst = new Set(retried.map(({ first }) => first));
const wallMs = performance.now() - wallStarted;

// ---- summary ----
for (const r of results) if (!r.retry) times[r.file] = Math.round(r.ms);
try {
  writeFileSync(TIMES_FILE, JSON.stringify(times, Object.keys(times).sort(), 2) + '\n');
} catch {
  // read-only checkout: the next run just schedules without history
}
const fmt = (ms) => {
  const s = Math.round(ms / 1000);
  return ms >= 60_000 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${(ms / 1000).toFixed(1)} s`;
};
console.log('\n── summary ──');
for (const l of Object.keys(laneMs)) {
  // A retried file counts once: by its run alone.
  const rs = results.filter((r) => r.lane === l && !retriedFirst.has(r));
  const sum = (k) => rs.reduce((n, r) => n + r.counts[k], 0);
  console.log(
    `${l} lane: ${rs.length} files, ${sum('tests')} tests, ${sum('pass')} pass, ${sum('fail')} fail` +
      `${sum('cancelled') ? `, ${sum('cancelled')} cancelled` : ''}${sum('skipped') ? `, ${sum('skipped')} skipped` : ''}` +
      ` in ${fmt(laneMs[l])} (${l === 'heavy' && HEAVY_ADAPTIVE && !BATCHED.heavy ? `${CONCURRENCY[l]} to ${peak[l]}` : peak[l]} at once), ${fmt(rs.reduce((n, r) => n + r.cpuMs, 0))} of CPU`,
  );
}
/** One file's line in a summary list: a figure of it, its lane, its name. */
const row = (ms, r) => `  ${fmt(ms).padStart(10)}  ${r.lane.padEnd(5)}  ${r.file}${r.retry ? ' (again, alone)' : ''}`;
console.log('slowest files:');
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(row(r.ms, r));
console.log('most CPU (own and waited-for children):');
for (const r of [...results].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 15)) console.log(row(r.cpuMs, r));
// The process's event loop held longest (scripts/test-cpu.mjs): reeltime runs in the test's process, and a loop that
// stands still for seconds fails WebRTC peers' ICE consent and starves the media a test then waits for.
const STALL_MS = 1_000;
const stalled = results.filter((r) => (r.loopMs ?? 0) >= STALL_MS).sort((a, b) => b.loopMs - a.loopMs);
if (stalled.length > 0) {
  console.log(`event loop held ${STALL_MS / 1000} s or more at once:`);
  for (const r of stalled.slice(0, 10)) console.log(row(r.loopMs, r));
}
const SLOW_FAST_MS = 20_000;
const slowFast = results.filter((r) => r.lane === 'fast' && r.ok && r.ms > SLOW_FAST_MS);
if (slowFast.length > 0) {
  console.log(`fast-lane files over ${SLOW_FAST_MS / 1000} s (make them faster, or list them in scripts/test-lanes.mjs):`);
  for (const r of slowFast) console.log(`  ${fmt(r.ms).padStart(10)}  ${r.file}`);
}
const failed = results.filter((r) => !r.ok && !retriedFirst.has(r));
const notRun = selected.length - results.filter((r) => !r.retry).length;
if (retried.length > 0) {
  console.log('retried alone after failing beside others:');
  for (const { first, again } of retried) console.log(`  ${again.ok ? 'passed' : 'FAILED again'}  ${first.file}`);
}
/** The lines of a failed file's output that say what failed: node:test's list of failing tests, or the output's end. */
const failureLines = (text, count) => {
  const lines = text.trimEnd().split('\n');
  const at = lines.findIndex((l) => l.startsWith('✖ failing tests:'));
  return (at >= 0 ? lines.slice(at + 1, at + 1 + count) : lines.slice(-count)).join('\n');
};
// Each first failure's lines, also of those that passed alone: what broke under load is still worth reading.
for (const { first } of retried.filter(({ again }) => again.ok)) console.log(`── ${first.file} (beside others; passed alone) ──\n${failureLines(first.text, 10)}`);
if (failed.length > 0) console.log(`failed files:\n  ${failed.map((r) => r.file).join('\n  ')}`);
// CI shows the log's tail: each failure's own lines again here, so what broke is readable there.
const FAILURE_LINES = 40;
for (const r of failed) console.log(`── ${r.file} ──\n${failureLines(r.text, FAILURE_LINES)}`);
if (notRun > 0) console.log(`${notRun} files not run (interrupted)`);
console.log(`wall time: ${fmt(wallMs)}`);
process.exit(failed.length > 0 || notRun > 0 ? 1 : 0);
