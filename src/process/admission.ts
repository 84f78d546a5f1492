import { cpus } from 'node:os';

/** Whole-machine CPU busy share since the previous sample, from the kernel's per-core counters (no timer). */
function cpuSampler(): () => number {
  const totals = () => {
    let idle = 0;
    let all = 0;
    for (const c of cpus()) {
      idle += c.times.idle;
      all += c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq;
    }
    return { idle, all };
  };
  let last = totals();
  let lastShare = 0;
  return () => {
    const now = totals();
    const all = now.all - last.all;
    // Counters move in 10 ms ticks: too short an interval says nothing new.
    if (all < 100 * cpus().length) return lastShare;
    lastShare = 1 - (now.idle - last.idle) / all;
    last = now;
    return lastShare;
  };
}

/**
 * Capacity units in use in this process, and whether one more piece of work fits (units and CPU, like LiveKit's
 * admission): a recording session on a recorder, an ingress on a channel process.
 */
export class Admission {
  #used = 0;
  readonly #cpu = cpuSampler();

  constructor(
    private readonly capacity: number,
    private readonly cpuThresholdPercent: number,
  ) {}

  /** Reserves `cost` units when they fit and the CPU is under the threshold; false refuses the session. */
  admit(cost: number): boolean {
    if (this.#used + cost > this.capacity) return false;
    if (this.cpuThresholdPercent < 100 && this.#cpu() * 100 > this.cpuThresholdPercent) return false;
    this.#used += cost;
    return true;
  }

  release(cost: number): void {
    this.#used = Math.max(0, this.#used - cost);
  }

  get used(): number {
    return this.#used;
  }
}
