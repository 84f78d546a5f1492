/** Bandwidth cap: a token bucket in front of a queue of bounded size. */
export interface RateLimit {
  /** Bits per second the link drains. */
  readonly bitsPerSecond: number;
  /** Bytes that may go at once after an idle spell (the bucket depth). */
  readonly burstBytes: number;
  /** Bytes the queue holds beyond the bucket; a datagram that does not fit is dropped (tail drop). */
  readonly queueBytes: number;
}

/**
 * When each datagram leaves a capped link, or undefined when the queue is full. Time in ms, given by the
 * caller (pure: no clock inside). Departure times never decrease, so the shaper keeps the order.
 */
export class TokenBucketShaper {
  /** When the link has sent everything accepted so far, bucket credit aside. */
  #busyUntil = Number.NEGATIVE_INFINITY;

  constructor(private readonly limit: RateLimit) {
    if (!(limit.bitsPerSecond > 0)) throw new RangeError(`bitsPerSecond must be > 0, got ${limit.bitsPerSecond}`);
  }

  /** Ms the link needs for `bytes`. */
  #sendMs(bytes: number): number {
    return (bytes * 8 * 1000) / this.limit.bitsPerSecond;
  }

  /** The departure time of a datagram of `bytes` arriving at `now`, or undefined when it is dropped. */
  admit(now: number, bytes: number): number | undefined {
    // A full bucket lets burstBytes go at once: as if the link had been busy until burstMs ago at most.
    const start = Math.max(this.#busyUntil, now - this.#sendMs(this.limit.burstBytes));
    const finish = start + this.#sendMs(bytes);
    const queuedMs = finish - now;
    if (queuedMs > this.#sendMs(this.limit.queueBytes)) return undefined;
    this.#busyUntil = finish;
    return Math.max(now, finish);
  }
}
