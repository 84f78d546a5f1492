// The end of a run (scripts/test.mjs): durations kept for the next run's order, counts per lane, the slowest files,
// those that used most CPU or held their event loop, the failures with their lines; returns the exit code.
import { writeFileSync } from 'node:fs';
import { BATCHED, CONCURRENCY, HEAVY_ADAPTIVE } from './test-settings.mjs';

export function printSummary({ results, retried, laneMs, peak, selected, times, timesFile, wallMs }) {
  /** First runs that a run alone superseded: each retried file counts once, by that run. */
  const retriedFirst = new Set(retried.map(({ first }) => first));
  for (const r of results) if (!r.retry) times[r.file] = Math.round(r.ms);
  try {
    writeFileSync(timesFile, JSON.stringify(times, Object.keys(times).sort(), 2) + '\n');
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
  return failed.length > 0 || notRun > 0 ? 1 : 0;
}
