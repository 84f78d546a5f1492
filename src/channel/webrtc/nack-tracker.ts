/**
 * The SFU's NACKs towards one incoming RTP stream (pure: the caller passes the time). A gap in the sequence
 * numbers is NACKed at once, then again every retry interval (the round trip measured on earlier repairs, at least
 * `minRetryMs`) for as long as a retransmission sent now can still arrive within `deadlineMs` of the gap being
 * seen. After that the packet is given up (`lost`): for video the caller asks for a keyframe, since the frame that
 * needed it cannot be decoded (docs/channel.md, "Loss on each hop").
 */
export interface NackTrackerOptions {
  /** How long after a gap is seen a retransmission is still worth having (default 1000 ms: see DEFAULTS). */
  readonly deadlineMs?: number;
  /** Shortest time between two NACKs of one packet (default 20 ms). */
  readonly minRetryMs?: number;
  /** The round trip assumed before the first repair is measured (default 100 ms). */
  readonly initialRttMs?: number;
  /** Most packets followed at once; the oldest are given up beyond it (default 500). */
  readonly maxMissing?: number;
}

interface Missing {
  readonly seenAt: number;
  /** When the last NACK of it went out (undefined: not yet). */
  nackedAt: number | undefined;
  firstNackAt: number | undefined;
  nacks: number;
}

export interface NackDue {
  /** Sequence numbers (16-bit) to NACK now. */
  readonly nack: number[];
  /** Sequence numbers (16-bit) given up: a retransmission could no longer arrive in time. */
  readonly lost: number[];
}

export interface ObserveResult {
  /** The packet was one the tracker had NACKed: a repair. */
  readonly repaired: boolean;
  /** The packet came after it had been given up. */
  readonly late: boolean;
  /**
   * The packet had already arrived (a second retransmission, a sender's RTX probe resending old packets, a
   * duplicating network): older than the highest seen and neither missing nor given up.
   */
  readonly duplicate: boolean;
}

const FRESH: ObserveResult = { repaired: false, late: false, duplicate: false };

// 1000 ms: the recorder holds a hole up to 2 s, and on a loaded node the measured round trip grows (it includes
// this process's scheduling delay), which at 500 ms left one NACK per packet before giving up: recordings through
// 5 % loss lost frames to freezes that a second NACK would have saved. A live viewer drops what comes too late.
const DEFAULTS = { deadlineMs: 1000, minRetryMs: 20, initialRttMs: 100, maxMissing: 500 };

export class NackTracker {
  readonly #o: Required<NackTrackerOptions>;
  /** Extended (unwrapped) sequence numbers still awaited, in order. */
  readonly #missing = new Map<number, Missing>();
  readonly #givenUp = new Set<number>();
  #highest: number | undefined;
  #rttMs: number;

  constructor(options: NackTrackerOptions = {}) {
    this.#o = { ...DEFAULTS, ...options };
    this.#rttMs = this.#o.initialRttMs;
  }

  /** The round trip estimated from repairs (a NACK's first send to its packet's arrival). */
  get rttMs(): number {
    return this.#rttMs;
  }

  get missing(): number {
    return this.#missing.size;
  }

  /** A packet arrived (original or retransmission, already unwrapped from RTX). */
  observe(seq: number, now: number): ObserveResult {
    const ext = this.#extend(seq);
    if (this.#highest === undefined) {
      this.#highest = ext;
      return FRESH;
    }
    if (ext > this.#highest) {
      // Far jumps (a sender restart, a long outage) are not NACKed packet by packet.
      if (ext - this.#highest > 1 && ext - this.#highest <= this.#o.maxMissing) {
        for (let s = this.#highest + 1; s < ext; s++) this.#missing.set(s, { seenAt: now, nackedAt: undefined, firstNackAt: undefined, nacks: 0 });
        this.#trim();
      }
      this.#highest = ext;
      return FRESH;
    }
    const m = this.#missing.get(ext);
    if (m) {
      this.#missing.delete(ext);
      // Only a packet NACKed once measures the round trip unambiguously.
      if (m.nacks === 1 && m.firstNackAt !== undefined) {
        const sample = Math.min(Math.max(now - m.firstNackAt, 1), this.#o.deadlineMs);
        this.#rttMs = (this.#rttMs * 7 + sample) / 8;
      }
      return { repaired: m.nacks > 0, late: false, duplicate: false };
    }
    if (this.#givenUp.delete(ext)) return { repaired: false, late: true, duplicate: false };
    return { repaired: false, late: false, duplicate: true };
  }

  /** What to NACK now and what to give up; call it every few milliseconds while `missing` > 0. */
  due(now: number): NackDue {
    const nack: number[] = [];
    const lost: number[] = [];
    const retryMs = Math.max(this.#o.minRetryMs, Math.round(this.#rttMs * 1.2));
    for (const [ext, m] of this.#missing) {
      // A retransmission asked for now arrives about one round trip later.
      if (now + this.#rttMs > m.seenAt + this.#o.deadlineMs && (m.nacks > 0 || now > m.seenAt + this.#o.deadlineMs)) {
        this.#missing.delete(ext);
        this.#remember(ext);
        lost.push(ext & 0xffff);
        continue;
      }
      if (m.nackedAt !== undefined && now - m.nackedAt < retryMs) continue;
      m.nackedAt = now;
      m.firstNackAt ??= now;
      m.nacks++;
      nack.push(ext & 0xffff);
    }
    return { nack, lost };
  }

  /** A new stream (SSRC change): forget the old numbering. */
  reset(): void {
    this.#missing.clear();
    this.#givenUp.clear();
    this.#highest = undefined;
  }

  #remember(ext: number): void {
    this.#givenUp.add(ext);
    if (this.#givenUp.size > this.#o.maxMissing) this.#givenUp.delete(this.#givenUp.values().next().value!);
  }

  #trim(): void {
    while (this.#missing.size > this.#o.maxMissing) {
      const oldest = this.#missing.keys().next().value!;
      this.#missing.delete(oldest);
      this.#remember(oldest);
    }
  }

  /** The 16-bit number as an integer continuing the highest seen (wraps either way). */
  #extend(seq: number): number {
    if (this.#highest === undefined) return seq;
    const base = this.#highest;
    let ext = Math.floor(base / 0x10000) * 0x10000 + seq;
    if (ext - base > 0x8000) ext -= 0x10000;
    else if (base - ext > 0x8000) ext += 0x10000;
    return ext;
  }
}
