// Runs the *.test.ts files under src/, packages/*/src and test/ (through tsx), in two lanes (which file is in which:
// scripts/test-lanes.mjs), each file either in a batch worker (many files one after another in one process, each in
// a suite of its own: scripts/test-batch/) or in a process of its own (REELTIME_TEST_BATCH, scripts/test-settings.mjs):
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
// The settings and their reasons: scripts/test-settings.mjs; the heavy lane's admission: scripts/test-admission.mjs;
// the summary: scripts/test-summary.mjs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { runAdmitted } from './test-admission.mjs';
import { BACKGROUND, HEAVY, PAIRED, RUNS_ALONE, TIMING_SENSITIVE } from './test-lanes.mjs';
import { buildServerBundle, buildTestFileBundle } from './test-server-bundle.mjs';
import { BATCHED, CHRT_AVAILABLE, CONCURRENCY, FAST_ALONGSIDE, FILE_TIMEOUT_MS, HEAVY_ADAPTIVE, NICE_AVAILABLE, RETRY_ALONE_MAX, YIELD_NICE } from './test-settings.mjs';
import { printSummary } from './test-summary.mjs';

const root = new URL('..', import.meta.url).pathname;
const TIMES_FILE = join(root, '.test-times.json');
const GUARD = join(root, 'scripts', 'test-fast-lane-guard.mjs');
const CPU_REPORT = join(root, 'scripts', 'test-cpu.mjs');
const ASYNC_HOOK = join(root, 'scripts', 'test-async-hook.mjs');
const CPU_PROFILE_DIR = process.env.REELTIME_TEST_CPU_PROFILE_DIR;

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
  if (fileLane === 'heavy' && HEAVY_ADAPTIVE && !BATCHED.heavy) await runAdmitted(queue, fileLane, { runFile, peak, interrupted: () => interrupted });
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

// Interrupted (Ctrl-C, or a CI job's timeout): each running file is ended too, none outlives the run.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    for (const c of running) c.kill('SIGTERM');
  });
}

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
// The files that failed beside others, once more each, alone (RETRY_ALONE_MAX): heavy files ran beside other heavy
// ones, fast files under SCHED_IDLE beside the heavy lane (session 35's fresh-clone run went red on one such fast file
// whose WebRTC peer did not connect in 20 s there, and passed alone).
const failedBeside = results.filter((r) => !r.ok && !(r.lane === 'heavy' && BATCHED.heavy));
const retried = [];
if (!interrupted && failedBeside.length > 0 && failedBeside.length <= RETRY_ALONE_MAX) {
  console.log(`\n── ${failedBeside.length} file(s) failed beside others: each once more, alone ──`);
  for (const first of failedBeside) {
    if (interrupted) break;
    const retryStarted = performance.now();
    await runFile(first.file, first.lane, { retry: true });
    retried.push({ first, again: results.at(-1) });
    laneMs[first.lane] += performance.now() - retryStarted;
  }
}
const wallMs = performance.now() - wallStarted;
process.exit(printSummary({ results, retried, laneMs, peak, selected, times, timesFile: TIMES_FILE, wallMs }));
