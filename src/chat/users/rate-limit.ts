import type { Clock } from '../../clock/index.ts';

/** Fixed one-second windows per key (the chat service's "100 requests per second per app key"). */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {}

  /** True when the request may proceed; a limit of 0 disables limiting. */
  take(key: string): boolean {
    if (this.perSecond <= 0) return true;
    const now = this.clock.now();
    const w = this.#windows.get(key);
    if (!w || now - w.start >= 1000) {
      this.#windows.set(key, { start: now, count: 1 });
      return true;
    }
    w.count += 1;
    return w.count <= this.perSecond;
  }
}
