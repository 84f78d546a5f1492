/**
 * The recorder's jitter buffer (issue 27): RTP packets of one stream in, the same packets out in sequence-number
 * order, with a `gap` where packets were given up on. Pure: time comes in as an argument, the caller polls at
 * `deadline()`.
 *
 * Hold time (docs/recording-individual.md, "Loss"): a missing packet is waited for `holdMs` after the first packet
 * behind it arrived, both in this process's running time and in the stream's media time (RTP timestamps of the
 * packets read since), then declared lost. Running time is the wall clock with each step between two calls counted
 * at most 50 ms: when this process stalls (a loaded machine), the packets queued meanwhile are read in a burst and
 * the retransmission requests go out late, so the stall itself must not use up the hold. A stream that stops after
 * a hole gives it up after 10 × maxMs of running time. `holdMs` = clamp(max(minMs, 3 × interarrival jitter, 1.5 × repair delay +
 * 10 ms), minMs, maxMs), default 50–400 ms; the interarrival jitter is RFC 3550's estimate (§6.4.1, gain 1/16), the
 * repair delay is the largest time a hole took to fill (a retransmission, or a reordered packet), counting late
 * ones that came after their hole was given up, and halves every 10 s without a new one. A packet older than what
 * was released is late (counted, dropped); a repeated one is a duplicate (dropped). More than `maxPackets` held
 * releases at once; a jump of more than 3000 numbers or a new SSRC starts over (`reset`).
 */

/** What the buffer reads of a packet. */
export interface JitterPacket {
  readonly seq: number;
  readonly timestamp: number;
  readonly ssrc: number;
}

export type JitterOutput<P extends JitterPacket> =
  | { readonly kind: 'packet'; readonly packet: P }
  /** `count` packets from `firstSeq` on were given up on; the next output is the packet after them. */
  | { readonly kind: 'gap'; readonly firstSeq: number; readonly count: number }
  /** A new stream (SSRC change, or a jump in numbers): what follows does not continue what came before. */
  | { readonly kind: 'reset' };

export interface JitterBounds {
  readonly minMs: number;
  readonly maxMs: number;
  /** Packets held at most; past it the oldest gap is given up at once. */
  readonly maxPackets: number;
}

/** A live consumer's bounds (the mix: its 400 ms latency window). */
export const DEFAULT_JITTER_BOUNDS: JitterBounds = Object.freeze({ minMs: 50, maxMs: 400, maxPackets: 1000 });

/**
 * A recording's bounds (individual slicers): nobody watches it live, so a hole may be waited for longer; the hold
 * only delays what follows a hole on its way to the slicer. 250 ms covers a NACK round trip on a loaded node, 2 s a
 * retransmission behind a stall of the sender or the node.
 */
export const RECORDING_JITTER_BOUNDS: JitterBounds = Object.freeze({ minMs: 250, maxMs: 2000, maxPackets: 2000 });

export interface JitterStats {
  /** Packets that came in (duplicates and late ones included). */
  received: number;
  /** Holes noticed (packets missing when a later one came). */
  missing: number;
  /** Of those, filled before their deadline (retransmitted or reordered). */
  repaired: number;
  /** Of those, given up on (declared in a `gap`). */
  lost: number;
  /** Packets that came after their number was released or given up. */
  late: number;
  duplicates: number;
}

const JUMP = 3000;
/** A hole with no newer media behind it is given up after this many times the longest hold. */
const STALLED_FACTOR = 10;
/** The most one step between two calls adds to the running time (a longer one was a stall of this process). */
const RUNNING_STEP_CAP_MS = 50;
const REPAIR_HALF_LIFE_MS = 10_000;

interface Held<P> {
  readonly packet: P;
  /** Running time (see the header) when it arrived. */
  readonly atMs: number;
}

export class JitterBuffer<P extends JitterPacket> {
  readonly stats: JitterStats = { received: 0, missing: 0, repaired: 0, lost: 0, late: 0, duplicates: 0 };
  readonly #held = new Map<number, Held<P>>();
  /** When each hole (extended number) was noticed; also kept a while after it was given up, to time late ones. */
  readonly #holes = new Map<number, number>();
  #ssrc: number | undefined;
  /** Extended number of the next packet to release. */
  #next = 0;
  /** Highest extended number seen. */
  #highest = -1;
  #jitterMs = 0;
  #lastTransit: number | undefined;
  #repairMs = 0;
  #repairAtMs = 0;
  /** RTP timestamp of the packet with the highest number seen. */
  #newestTs = 0;
  /** This process's running time (ms) and the wall time it was last advanced at. */
  #running = 0;
  #lastWallMs: number | undefined;

  constructor(
    /** RTP clock rate, for the interarrival jitter. */
    private readonly clockRate: number,
    private readonly bounds: JitterBounds = DEFAULT_JITTER_BOUNDS,
  ) {}

  /** How long a hole is waited for now (ms). */
  holdMs(nowMs: number): number {
    const repair = this.#repairMs * 0.5 ** (Math.max(0, nowMs - this.#repairAtMs) / REPAIR_HALF_LIFE_MS);
    const want = Math.max(this.bounds.minMs, 3 * this.#jitterMs, repair > 0 ? 1.5 * repair + 10 : 0);
    return Math.min(this.bounds.maxMs, want);
  }

  /** Packets held (waiting for a hole before them to fill). */
  get held(): number {
    return this.#held.size;
  }

  push(packet: P, nowMs: number): JitterOutput<P>[] {
    this.#tick(nowMs);
    const at = this.#running;
    this.stats.received++;
    const out: JitterOutput<P>[] = [];
    if (this.#ssrc !== undefined && packet.ssrc !== this.#ssrc) this.#restart(out);
    let ext = this.#extend(packet.seq);
    if (this.#ssrc !== undefined && Math.abs(ext - this.#highest) > JUMP) {
      this.#restart(out);
      ext = this.#extend(packet.seq);
    }
    if (this.#ssrc === undefined) {
      this.#ssrc = packet.ssrc;
      this.#next = ext;
      this.#highest = ext - 1;
    }
    if (ext < this.#next) {
      // Given up on before it came (late), or a copy of one released (duplicate).
      const noticed = this.#holes.get(ext);
      if (noticed === undefined) {
        this.stats.duplicates++;
        return out;
      }
      this.#observeRepair(at - noticed, nowMs);
      this.#holes.delete(ext);
      this.stats.late++;
      return out;
    }
    if (this.#held.has(ext)) {
      this.stats.duplicates++;
      return out;
    }
    this.#observeTransit(packet.timestamp, nowMs);
    if (ext > this.#highest) {
      for (let s = this.#highest + 1; s < ext; s++) this.#holes.set(s, at);
      this.stats.missing += Math.max(0, ext - this.#highest - 1);
      this.#highest = ext;
    } else {
      const noticed = this.#holes.get(ext);
      if (noticed !== undefined) {
        this.stats.repaired++;
        this.#observeRepair(at - noticed, nowMs);
        this.#holes.delete(ext);
      }
    }
    this.#held.set(ext, { packet, atMs: at });
    if (ext === this.#highest) this.#newestTs = packet.timestamp;
    this.#release(out, nowMs);
    return out;
  }

  /** Releases what waited long enough (call at `deadline()`). */
  poll(nowMs: number): JitterOutput<P>[] {
    this.#tick(nowMs);
    const out: JitterOutput<P>[] = [];
    this.#release(out, nowMs);
    return out;
  }

  /** When the oldest hole is given up (undefined when nothing waits). */
  deadline(nowMs: number): number | undefined {
    const first = this.#firstHeld();
    if (first === undefined) return undefined;
    const h = this.#held.get(first)!;
    const hold = this.holdMs(nowMs);
    const due = h.atMs + (this.#mediaMsSince(h.packet) >= hold ? hold : STALLED_FACTOR * this.bounds.maxMs);
    // In wall time from now: the running time a call now would see, then one step at most per call.
    const runningNow = this.#running + Math.min(RUNNING_STEP_CAP_MS, Math.max(0, nowMs - (this.#lastWallMs ?? nowMs)));
    return nowMs + Math.max(0, due - runningNow);
  }

  #tick(nowMs: number): void {
    if (this.#lastWallMs !== undefined) this.#running += Math.min(RUNNING_STEP_CAP_MS, Math.max(0, nowMs - this.#lastWallMs));
    this.#lastWallMs = nowMs;
  }

  /** Media time (ms, from RTP timestamps) from `p` to the newest packet received. */
  #mediaMsSince(p: P): number {
    const newest = this.#held.get(this.#highest)?.packet.timestamp ?? this.#newestTs;
    return (((newest - p.timestamp) | 0) * 1000) / this.clockRate;
  }

  /** Everything held, in order, gaps given up at once (end of stream). */
  flush(): JitterOutput<P>[] {
    const out: JitterOutput<P>[] = [];
    while (this.#held.size > 0) this.#giveUp(out);
    return out;
  }

  #restart(out: JitterOutput<P>[]): void {
    out.push(...this.flush());
    out.push({ kind: 'reset' });
    this.#holes.clear();
    this.#ssrc = undefined;
    this.#lastTransit = undefined;
  }

  /** The extended number of `seq` nearest the highest seen (RFC 3550 wrap-around). */
  #extend(seq: number): number {
    if (this.#ssrc === undefined) return seq + 0x10000;
    const base = this.#highest;
    const cycle = Math.floor(base / 0x10000) * 0x10000;
    let ext = cycle + seq;
    if (ext - base > 0x8000) ext -= 0x10000;
    else if (base - ext > 0x8000) ext += 0x10000;
    return ext;
  }

  #observeTransit(timestamp: number, nowMs: number): void {
    const transit = nowMs - (timestamp * 1000) / this.clockRate;
    if (this.#lastTransit !== undefined) {
      let d = Math.abs(transit - this.#lastTransit);
      // A timestamp wrap (2^32 ticks) or a sender's jump is no jitter.
      if (d > 1000) d = 0;
      this.#jitterMs += (d - this.#jitterMs) / 16;
    }
    this.#lastTransit = transit;
  }

  #observeRepair(ms: number, nowMs: number): void {
    const current = this.#repairMs * 0.5 ** (Math.max(0, nowMs - this.#repairAtMs) / REPAIR_HALF_LIFE_MS);
    this.#repairMs = Math.max(current, ms);
    this.#repairAtMs = nowMs;
  }

  #firstHeld(): number | undefined {
    if (this.#held.size === 0) return undefined;
    if (this.#held.has(this.#next)) return this.#next;
    let first: number | undefined;
    for (const k of this.#held.keys()) if (first === undefined || k < first) first = k;
    return first;
  }

  #release(out: JitterOutput<P>[], nowMs: number): void {
    for (;;) {
      const h = this.#held.get(this.#next);
      if (h) {
        this.#held.delete(this.#next);
        this.#next++;
        out.push({ kind: 'packet', packet: h.packet });
        continue;
      }
      if (this.#held.size === 0) return;
      const first = this.#firstHeld()!;
      if (this.#held.size <= this.bounds.maxPackets) {
        const h = this.#held.get(first)!;
        const waited = this.#running - h.atMs;
        const hold = this.holdMs(nowMs);
        // Both the wall clock and the stream's own media time must have moved on by the hold: after a stall of
        // this process (timers fire before the packets queued meanwhile are read) the retransmission may be in the
        // socket already. A stream that stopped after a hole gives it up after STALLED_FACTOR × maxMs.
        if (waited < hold) return;
        if (this.#mediaMsSince(h.packet) < hold && waited < STALLED_FACTOR * this.bounds.maxMs) return;
      }
      this.#giveUp(out);
    }
  }

  /** Declares the hole before the first held packet lost and releases from there. */
  #giveUp(out: JitterOutput<P>[]): void {
    const first = this.#firstHeld()!;
    if (first > this.#next) {
      const count = first - this.#next;
      this.stats.lost += count;
      out.push({ kind: 'gap', firstSeq: this.#next & 0xffff, count });
      this.#next = first;
    }
    const h = this.#held.get(first)!;
    this.#held.delete(first);
    this.#next = first + 1;
    out.push({ kind: 'packet', packet: h.packet });
    // Holes far behind are no longer timed.
    if (this.#holes.size > this.bounds.maxPackets) {
      for (const k of this.#holes.keys()) if (k < this.#next - this.bounds.maxPackets) this.#holes.delete(k);
    }
  }
}
