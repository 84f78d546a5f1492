// How idle the machine's CPUs have been lately, from /proc/stat: the test runner's heavy lane starts another file
// only while there is CPU to spare (scripts/test.mjs). Returns undefined where there is no /proc/stat.
import { readFileSync } from 'node:fs';

function cpuTotals() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // cpu  user nice system idle iowait irq softirq steal ...
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/** Samples /proc/stat once a second; `idleFraction(s)` is the share of CPU time idle over the last `s` seconds. */
export function startIdleMeter() {
  const samples = [];
  const sample = () => {
    const t = cpuTotals();
    if (t === undefined) return;
    samples.push(t);
    if (samples.length > 120) samples.shift();
  };
  sample();
  const timer = setInterval(sample, 1000);
  timer.unref();
  return {
    idleFraction(seconds) {
      if (samples.length < 2) return undefined;
      const last = samples[samples.length - 1];
      const first = samples[Math.max(0, samples.length - 1 - seconds)];
      const total = last.total - first.total;
      return total > 0 ? (last.idle - first.idle) / total : undefined;
    },
    stop: () => clearInterval(timer),
  };
}
