/** A token bucket per key, refilled continuously from the injected clock. Pure state plus one small class. */
export interface Bucket {
  readonly tokens: number;
  readonly at: number;
}

export function take(b: Bucket | undefined, now: number, perSecond: number, burst: number): { bucket: Bucket; allowed: boolean } {
  const start = b ?? { tokens: burst, at: now };
  const tokens = Math.min(burst, start.tokens + (Math.max(0, now - start.at) * perSecond) / 1000);
  if (tokens < 1) return { bucket: { tokens, at: now }, allowed: false };
  return { bucket: { tokens: tokens - 1, at: now }, allowed: true };
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly now: () => number,
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** False when `key` is over its rate; always true when the limit is off (perSecond 0). */
  allow(key: string): boolean {
    if (this.perSecond <= 0) return true;
    const { bucket, allowed } = take(this.#buckets.get(key), this.now(), this.perSecond, this.burst);
    this.#buckets.set(key, bucket);
    return allowed;
  }
}
