import { gilbertElliottLoss, randomLoss, type DropCause, type GilbertElliott, type LossModel } from './loss.ts';
import type { Random } from './prng.ts';
import { TokenBucketShaper, type RateLimit } from './shaper.ts';

/** What a link does to the datagrams of one direction. Every field is optional: an empty object is a clean link. */
export interface LinkImpairment {
  /** Independent loss probability, 0..1. */
  readonly loss?: number;
  /** Burst loss (Gilbert–Elliott), applied after the independent loss. */
  readonly burst?: GilbertElliott;
  /** Fixed one-way delay, ms. */
  readonly delayMs?: number;
  /** Uniform jitter ± this many ms around the delay; order is kept (a datagram never overtakes the one before). */
  readonly jitterMs?: number;
  /** Share of datagrams held back by `reorderGapMs` so that later ones overtake them, 0..1. */
  readonly reorder?: number;
  /** How long a reordered datagram is held beyond its release time, ms (default 20). */
  readonly reorderGapMs?: number;
  /** Share of datagrams sent twice, 0..1. */
  readonly duplicate?: number;
  /** Bandwidth cap. */
  readonly rate?: RateLimit;
}

/** Totals of one direction. */
export interface LinkCounters {
  packetsIn: number;
  bytesIn: number;
  packetsOut: number;
  bytesOut: number;
  dropped: Record<DropCause, number>;
  duplicated: number;
  reordered: number;
  /** Datagrams released later than they arrived (delay, jitter, the cap's queue, reordering). */
  delayed: number;
}

/** The fate of one datagram: dropped, or released at these times (two for a duplicate), in ms. */
export type Verdict = { readonly kind: 'drop'; readonly cause: DropCause } | { readonly kind: 'send'; readonly at: readonly number[] };

export function emptyCounters(): LinkCounters {
  return { packetsIn: 0, bytesIn: 0, packetsOut: 0, bytesOut: 0, dropped: { random: 0, burst: 0, queue: 0 }, duplicated: 0, reordered: 0, delayed: 0 };
}

function checkShare(name: string, v: number | undefined): void {
  if (v !== undefined && !(v >= 0 && v <= 1)) throw new RangeError(`${name} must be a share in [0, 1], got ${v}`);
}

/**
 * One direction of an impaired link, pure: given a datagram's arrival time and size, says whether it is lost
 * and when it leaves. Order of effects: loss (independent, then burst), the bandwidth cap's queue, delay and
 * jitter, reordering, duplication. The I/O (relay.ts) only carries the verdicts out.
 */
export class LinkScheduler {
  readonly counters: LinkCounters;
  readonly #losses: LossModel[] = [];
  readonly #shaper: TokenBucketShaper | undefined;
  /** Latest in-order release so far: jitter does not reorder on its own. */
  #lastRelease = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly link: LinkImpairment,
    private readonly random: Random,
    /** Counters to go on counting in (a link whose settings changed: `ImpairmentRelay.setLink`). */
    counters?: LinkCounters,
  ) {
    this.counters = counters ?? emptyCounters();
    checkShare('loss', link.loss);
    checkShare('reorder', link.reorder);
    checkShare('duplicate', link.duplicate);
    if ((link.delayMs ?? 0) < 0 || (link.jitterMs ?? 0) < 0 || (link.reorderGapMs ?? 0) < 0) {
      throw new RangeError('delayMs, jitterMs and reorderGapMs must not be negative');
    }
    if (link.loss) this.#losses.push(randomLoss(link.loss, random));
    if (link.burst) this.#losses.push(gilbertElliottLoss(link.burst, random));
    this.#shaper = link.rate ? new TokenBucketShaper(link.rate) : undefined;
  }

  decide(now: number, bytes: number): Verdict {
    const c = this.counters;
    c.packetsIn++;
    c.bytesIn += bytes;
    for (const model of this.#losses) {
      const cause = model.next();
      if (cause) return this.#drop(cause);
    }
    let at = now;
    if (this.#shaper) {
      const leaves = this.#shaper.admit(now, bytes);
      if (leaves === undefined) return this.#drop('queue');
      at = leaves;
    }
    const jitter = this.link.jitterMs ? (this.random() * 2 - 1) * this.link.jitterMs : 0;
    at = Math.max(at, at + (this.link.delayMs ?? 0) + jitter, this.#lastRelease);
    this.#lastRelease = at;
    if (this.link.reorder && this.random() < this.link.reorder) {
      // Held back without moving #lastRelease: the datagrams after it go first.
      at += this.link.reorderGapMs ?? 20;
      c.reordered++;
    }
    if (at > now) c.delayed++;
    const copies = this.link.duplicate && this.random() < this.link.duplicate ? 2 : 1;
    if (copies === 2) c.duplicated++;
    c.packetsOut += copies;
    c.bytesOut += copies * bytes;
    return { kind: 'send', at: copies === 2 ? [at, at] : [at] };
  }

  #drop(cause: DropCause): Verdict {
    this.counters.dropped[cause]++;
    return { kind: 'drop', cause };
  }
}
