/**
 * The one request rate limiter: a token bucket per key (an app id, an app key), refilled continuously from the
 * injected clock. `burst` requests may come at once, then `perSecond` on average; a limit of 0 turns it off.
 * The recording API uses a burst of its own; the chat users API uses burst = perSecond, which answers its
 * "N requests per second per app key" (docs/chat.md) without the double burst of fixed one-second windows.
 */
export interface Bucket {
  readonly tokens: number;
  readonly at: number;
}

/** Pure step: refill `b` for the time elapsed up to `now`, then take one token if there is one. */
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
    private readonly burst: number = Math.max(1, perSecond),
  ) {}

  /** False when `key` is over its rate; always true when the limit is off (perSecond 0). */
  allow(key: string): boolean {
    if (this.perSecond <= 0) return true;
    const { bucket, allowed } = take(this.#buckets.get(key), this.now(), this.perSecond, this.burst);
    this.#buckets.set(key, bucket);
    return allowed;
  }
}
