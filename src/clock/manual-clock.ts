import type { Clock, TimerHandle } from './clock.ts';

interface Pending {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/** A clock that only moves when a test calls advance(); due timers fire in time order. */
export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  #pending: Pending[] = [];

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#pending.push({ id, at: this.#now + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.#pending = this.#pending.filter((p) => p.id !== handle.id);
  }

  /** Moves time forward, firing every timer that falls due, including ones scheduled while advancing. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      this.#pending.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.#pending[0];
      if (!next || next.at > target) break;
      this.#pending.shift();
      this.#now = next.at;
      next.fn();
    }
    this.#now = target;
  }

  /** Number of timers not yet fired. */
  get pendingCount(): number {
    return this.#pending.length;
  }
}
