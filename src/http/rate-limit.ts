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
  const start = refill(b, now, perSecond, burst);
  if (start.tokens < 1) return { bucket: start, allowed: false };
  return { bucket: { tokens: start.tokens - 1, at: now }, allowed: true };
}

/** Pure: `b` refilled for the time elapsed up to `now` (a full bucket when there is none yet). */
export function refill(b: Bucket | undefined, now: number, perSecond: number, burst: number): Bucket {
  if (!b) return { tokens: burst, at: now };
  return { tokens: Math.min(burst, b.tokens + (Math.max(0, now - b.at) * perSecond) / 1000), at: now };
}

/** Whole seconds until `b` holds a token again (at least 1): the `Retry-After` of a refusal. */
export function secondsUntilToken(b: Bucket, perSecond: number): number {
  if (perSecond <= 0) return 1;
  return Math.max(1, Math.ceil((1 - b.tokens) / perSecond));
}

/** A limiter's answer: allowed, or refused with the seconds a client should wait (`Retry-After`). */
export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly now: () => number,
    private readonly perSecond: number,
    private readonly burst: number = Math.max(1, perSecond),
  ) {}

  /** False when `key` is over its rate; always true when the limit is off (perSecond 0). */
  allow(key: string): boolean {
    return this.check(key).allowed;
  }

  /** Takes a token for `key`, or says how long until there is one. */
  check(key: string): RateDecision {
    if (this.perSecond <= 0) return { allowed: true };
    const { bucket, allowed } = take(this.#buckets.get(key), this.now(), this.perSecond, this.burst);
    this.#buckets.set(key, bucket);
    return allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: secondsUntilToken(bucket, this.perSecond) };
  }
}
