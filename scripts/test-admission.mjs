// The heavy lane's admission (scripts/test.mjs): which file starts next, and when, from the CPU's idleness and the
// lanes of scripts/test-lanes.mjs.
import { startIdleMeter } from './cpu-idle.mjs';
import { BACKGROUND, BACKGROUND_COMPANY, LIGHT, LIGHT_COMPANY, PAIRED, RUNS_ALONE, TIMING_SENSITIVE } from './test-lanes.mjs';
import { ADMISSION, CHRT_AVAILABLE, CONCURRENCY, HEAVY_MAX, HEAVY_MAX_AFTER_CHAIN, HEAVY_MAX_IF_VERY_IDLE, SENSITIVE_COMPANY, SENSITIVE_COMPANY_AT_ONCE, SENSITIVE_COMPANY_AT_ONCE_IF_VERY_IDLE, SENSITIVE_COMPANY_IF_IDLE, SENSITIVE_COMPANY_IF_VERY_IDLE } from './test-settings.mjs';

/** Files in processes of their own, CONCURRENCY at once and more while the CPU has time to spare (ADMISSION). */
/**
 * `runFile(file, lane, { background })` runs one file to its end; `peak` keeps the most files at once per lane;
 * `interrupted()` says the run was stopped.
 */
export async function runAdmitted(queue, fileLane, { runFile, peak, interrupted }) {
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
  while ((queue.length > 0 || active.size > 0) && !interrupted()) {
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
