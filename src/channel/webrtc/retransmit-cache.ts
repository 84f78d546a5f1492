/**
 * The packets recently sent to one viewer's track, by the sequence number the viewer saw, for answering its NACKs
 * (pure: the caller passes the time). Bounded by age (`maxAgeMs`, default 1000 ms: older than that a
 * retransmission comes too late for a viewer's jitter buffer or a recorder's) and by bytes (`maxBytes`, default
 * 1 MiB per track, about 3 s of 2.5 Mbit/s video), oldest first. One packet is resent at most once per
 * `minResendMs` (default 50 ms: werift viewers NACK a packet every 5 ms for 50 ms, and NACKs repeated before the
 * first retransmission could arrive are not answered twice). Resends have a byte budget: each packet put earns
 * `resendShare` (default half) of its size, up to that share of `maxBytes`, and each resend spends its size, so a
 * viewer's NACKs cannot make the node send it more than one and a half times its stream.
 */
export interface RetransmitCacheOptions {
  readonly maxAgeMs?: number;
  readonly maxBytes?: number;
  readonly minResendMs?: number;
  readonly resendShare?: number;
}

interface Entry<T> {
  readonly item: T;
  readonly bytes: number;
  readonly sentAt: number;
  resentAt: number | undefined;
}

export type CacheLookup<T> =
  | { readonly kind: 'resend'; readonly item: T }
  | { readonly kind: 'missing' | 'expired' | 'recently_resent' | 'over_budget' };

export class RetransmitCache<T> {
  readonly #entries = new Map<number, Entry<T>>();
  readonly #maxAgeMs: number;
  readonly #maxBytes: number;
  readonly #minResendMs: number;
  readonly #resendShare: number;
  #bytes = 0;
  #budget = 0;

  constructor(options: RetransmitCacheOptions = {}) {
    this.#maxAgeMs = options.maxAgeMs ?? 1000;
    this.#maxBytes = options.maxBytes ?? 1024 * 1024;
    this.#minResendMs = options.minResendMs ?? 50;
    this.#resendShare = options.resendShare ?? 0.5;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** A packet with 16-bit sequence number `seq` and `bytes` on the wire was sent at `now`. */
  put(seq: number, item: T, bytes: number, now: number): void {
    const old = this.#entries.get(seq);
    if (old) {
      this.#entries.delete(seq);
      this.#bytes -= old.bytes;
    }
    this.#entries.set(seq, { item, bytes, sentAt: now, resentAt: undefined });
    this.#bytes += bytes;
    this.#budget = Math.min(this.#budget + bytes * this.#resendShare, this.#maxBytes * this.#resendShare);
    this.#evict(now);
  }

  /** The packet to resend for a NACK of `seq`, or why there is none. */
  take(seq: number, now: number): CacheLookup<T> {
    this.#evict(now);
    const e = this.#entries.get(seq);
    if (!e) return { kind: 'missing' };
    if (now - e.sentAt > this.#maxAgeMs) return { kind: 'expired' };
    if (e.resentAt !== undefined && now - e.resentAt < this.#minResendMs) return { kind: 'recently_resent' };
    if (e.bytes > this.#budget) return { kind: 'over_budget' };
    this.#budget -= e.bytes;
    e.resentAt = now;
    return { kind: 'resend', item: e.item };
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #evict(now: number): void {
    for (const [seq, e] of this.#entries) {
      if (this.#bytes <= this.#maxBytes && now - e.sentAt <= this.#maxAgeMs) break;
      this.#entries.delete(seq);
      this.#bytes -= e.bytes;
    }
  }
}
