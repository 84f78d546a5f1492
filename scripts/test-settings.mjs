// The runner's settings (scripts/test.mjs): concurrency, the heavy lane's admission rules, priorities, retries,
// batching and timeouts, each from its REELTIME_TEST_* variable where it has one.
import { existsSync } from 'node:fs';

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
export const CONCURRENCY = {
  fast: positiveInt('REELTIME_TEST_FAST_CONCURRENCY', 6),
  heavy: positiveInt('REELTIME_TEST_HEAVY_CONCURRENCY', 3),
};
// The heavy lane's admission (scripts/test.mjs's header, scripts/test-admission.mjs): fixed when REELTIME_TEST_HEAVY_CONCURRENCY is set, else from 3 up to this.
export const HEAVY_ADAPTIVE = !process.env.REELTIME_TEST_HEAVY_CONCURRENCY;
export const HEAVY_MAX = positiveInt('REELTIME_TEST_HEAVY_MAX', 5);
export const ADMISSION = {
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
export const SENSITIVE_COMPANY = 2;
/**
 * One more file beside a timing-sensitive one (RUNS_ALONE aside) while the CPU has been a quarter idle (ADMISSION):
 * the heavy lane used one of the two cores on average (12 min of CPU over 12 min in a fresh-clone run of session 18),
 * its length the sum of its files' lengths over about three at once, and the sensitive files (8 min of it) held the
 * lane at three.
 */
export const SENSITIVE_COMPANY_IF_IDLE = 1;
/**
 * BACKGROUND companions a timing-sensitive file gets whatever the CPU's idleness (the rest of its company waits for
 * idle), and the files at most beside which the next one starts: started beside three that the previous one's idle
 * moments had admitted, Chromium under a bandwidth cap lost 4.4 % of its packets in the queue (bound 2 %) and those
 * three starved at nice 19 (session 19).
 */
export const SENSITIVE_COMPANY_AT_ONCE = 1;
/**
 * While the CPU is very idle (ADMISSION.veryIdle): two more companions (up to seven files), and the next sensitive
 * file beside two. One more (six files) in session 24's fresh2 and fresh3 still left the lane's last four minutes to
 * the files that had found no room beside the chain.
 */
export const SENSITIVE_COMPANY_IF_VERY_IDLE = 2;
export const SENSITIVE_COMPANY_AT_ONCE_IF_VERY_IDLE = 2;
export const HEAVY_MAX_IF_VERY_IDLE = HEAVY_MAX + 2;
/** Files at once once no timing-sensitive file runs or waits (the lane's last part), while the CPU has time to spare. */
export const HEAVY_MAX_AFTER_CHAIN = positiveInt('REELTIME_TEST_HEAVY_MAX_AFTER_CHAIN', HEAVY_MAX + 3);
/**
 * The CPU priority of every heavy file but the timing-sensitive ones (and of the fast lane beside the heavy one):
 * the lowest, so a sensitive file gets nearly all of a contested core (weight 1024 against 15) and the others the rest.
 */
export const YIELD_NICE = '19';
/**
 * Heavy files that failed beside others run once more at the lane's end, one at a time with nothing beside them, when
 * no more than this many failed (more is a breakage, not a crowded CPU). A file that then passes is reported as such
 * and does not fail the run; its first failure is still printed. Why: on the slow 2-core machines of sessions 19-25,
 * every whole-suite run failed two to five different media files (a WHEP gap, slices late after a hold, a Chromium
 * tile not yet drawn) that passed alone, so a red run said more about the machine than about the code. 0: no retry.
 */
export const RETRY_ALONE_MAX = positiveInt('REELTIME_TEST_RETRY_ALONE', 8, 0);
// Which lanes run their files in batch workers (many files per process): REELTIME_TEST_BATCH=fast (default), all, or
// none (each file in its own process, as a file run alone).
const BATCH = process.env.REELTIME_TEST_BATCH || 'fast';
if (!['fast', 'all', 'none'].includes(BATCH)) {
  console.error(`REELTIME_TEST_BATCH must be fast, all or none, got ${BATCH}`);
  process.exit(2);
}
export const BATCHED = { fast: BATCH !== 'none', heavy: BATCH === 'all' };
// Both lanes at once: the fast lane runs beside the heavy one, this many batch workers, under SCHED_IDLE (`chrt
// --idle`): it gets only the CPU no heavy file wants, and the heavy lane's first files (those that run alone, about
// half a core of two for two minutes) leave more than it needs (a minute of CPU). Where chrt is missing it runs first
// (at nice 5 beside five to eight heavy files, real-time heavy files failed in 4 of 6 fresh-clone runs). Default 3
// again since session 24: session 23 made it opt-in after the individual loss test lost 23 and 3 video packets for
// good beside it in two of six fresh-clone runs, but the same loss came without it (13 packets, fresh3 of session
// 24; 2-7 in three of four runs of the file alone): a recorder's stream started at a repaired keyframe whose later
// packets had gone by, fixed in webrtc/gated-forward.ts. 0: the fast lane first, then the heavy one.
export const CHRT_AVAILABLE = existsSync('/usr/bin/chrt') || existsSync('/bin/chrt');
export const FAST_ALONGSIDE = positiveInt('REELTIME_TEST_FAST_ALONGSIDE', CHRT_AVAILABLE ? 3 : 0, 0);
// A file still running after this long is killed and counted as failed (one override for both lanes).
export const FILE_TIMEOUT_MS = {
  fast: positiveInt('REELTIME_TEST_FILE_TIMEOUT_MS', 180_000),
  heavy: positiveInt('REELTIME_TEST_FILE_TIMEOUT_MS', 600_000),
};

export const NICE_AVAILABLE = existsSync('/usr/bin/nice') || existsSync('/bin/nice');
