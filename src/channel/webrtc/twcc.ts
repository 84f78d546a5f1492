/**
 * Transport-wide congestion control feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01), the receive
 * side: the arrival time of every packet carrying the `transport-wide-cc` header extension, reported back to the
 * sender, whose own estimator (Chromium's GCC) then finds the bandwidth from how the delays grow. Pure: the caller
 * passes arrival times in microseconds and sends the bytes `build` returns (one RTCP packet, PT 205, FMT 15).
 */

/** Most packet statuses in one feedback; the rest goes into the next one. */
const MAX_STATUSES = 500;
const TICK_US = 250;
const REFERENCE_US = 64_000;

/** The 2-bit packet status symbols: not received, received with a small (1-byte) or a large (2-byte) delta. */
const NOT_RECEIVED = 0;
const SMALL = 1;
const LARGE = 2;
type Status = typeof NOT_RECEIVED | typeof SMALL | typeof LARGE;

export class TwccFeedback {
  /** Arrival times (µs) by extended transport sequence number, not yet reported. */
  readonly #arrivals = new Map<number, number>();
  #highest: number | undefined;
  /** The first sequence number the next feedback covers. */
  #next: number | undefined;
  #count = 0;

  /** Feedback packets built so far. */
  get sent(): number {
    return this.#count;
  }

  get pending(): number {
    return this.#arrivals.size;
  }

  record(tsn: number, arrivalUs: number): void {
    const ext = this.#extend(tsn);
    if (this.#highest === undefined || ext > this.#highest) this.#highest = ext;
    if (this.#next !== undefined && ext < this.#next) return; // already reported as lost
    if (!this.#arrivals.has(ext)) this.#arrivals.set(ext, arrivalUs);
  }

  /** The next feedback packet (covering what arrived since the last one), or undefined when nothing did. */
  build(senderSsrc: number, mediaSsrc: number): Buffer | undefined {
    if (this.#arrivals.size === 0 || this.#highest === undefined) return undefined;
    let base = this.#next ?? Math.min(...this.#arrivals.keys());
    // A long gap is not reported packet by packet: it starts at the oldest arrival still held.
    if (this.#highest - base >= 0x8000) base = Math.min(...this.#arrivals.keys());
    const symbols: Status[] = [];
    const deltas: number[] = [];
    let firstArrival: number | undefined;
    let reference = 0;
    let prevTick = 0;
    let end = base;
    for (let s = base; s <= this.#highest && symbols.length < MAX_STATUSES; s++) {
      const at = this.#arrivals.get(s);
      if (at === undefined) {
        symbols.push(NOT_RECEIVED);
        end = s + 1;
        continue;
      }
      const tick = Math.round(at / TICK_US);
      if (firstArrival === undefined) {
        firstArrival = at;
        reference = Math.floor(at / REFERENCE_US);
        prevTick = reference * (REFERENCE_US / TICK_US);
      }
      const delta = tick - prevTick;
      if (delta < -0x8000 || delta > 0x7fff) break; // left for the next feedback, with its own reference
      symbols.push(delta >= 0 && delta <= 0xff ? SMALL : LARGE);
      deltas.push(delta);
      prevTick = tick;
      end = s + 1;
    }
    // Trailing "not received" statuses are not reported yet: those packets may still come.
    while (symbols.length > 0 && symbols[symbols.length - 1] === NOT_RECEIVED) {
      symbols.pop();
      end--;
    }
    if (symbols.length === 0 || firstArrival === undefined) return undefined;
    for (let s = base; s < end; s++) this.#arrivals.delete(s);
    this.#next = end;
    const packet = serialize(senderSsrc, mediaSsrc, base & 0xffff, reference, this.#count & 0xff, symbols, deltas);
    this.#count++;
    return packet;
  }

  #extend(tsn: number): number {
    if (this.#highest === undefined) return tsn;
    const h = this.#highest;
    let ext = Math.floor(h / 0x10000) * 0x10000 + tsn;
    if (ext - h > 0x8000) ext -= 0x10000;
    else if (h - ext > 0x8000) ext += 0x10000;
    return ext;
  }
}

function chunks(symbols: readonly Status[]): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < symbols.length) {
    let run = 1;
    while (i + run < symbols.length && symbols[i + run] === symbols[i] && run < 0x1fff) run++;
    if (run >= 7) {
      // Run-length chunk: T=0, the 2-bit symbol, a 13-bit run length.
      out.push((symbols[i]! << 13) | run);
      i += run;
      continue;
    }
    // Status vector chunk: T=1, S=1 (2-bit symbols), seven symbols (the last chunk may be padded with zeros).
    let v = 0xc000;
    for (let k = 0; k < 7; k++) v |= (symbols[i + k] ?? 0) << (12 - 2 * k);
    out.push(v);
    i += 7;
  }
  return out;
}

function serialize(
  senderSsrc: number,
  mediaSsrc: number,
  baseSeq: number,
  reference: number,
  fbCount: number,
  symbols: readonly Status[],
  deltas: readonly number[],
): Buffer {
  const ch = chunks(symbols);
  const deltaBytes = deltas.reduce((n, d) => n + (d >= 0 && d <= 0xff ? 1 : 2), 0);
  const body = 20 + ch.length * 2 + deltaBytes;
  const padding = (4 - (body % 4)) % 4;
  const b = Buffer.alloc(body + padding);
  b[0] = 0x80 | (padding > 0 ? 0x20 : 0) | 15;
  b[1] = 205;
  b.writeUInt16BE(b.length / 4 - 1, 2);
  b.writeUInt32BE(senderSsrc >>> 0, 4);
  b.writeUInt32BE(mediaSsrc >>> 0, 8);
  b.writeUInt16BE(baseSeq, 12);
  b.writeUInt16BE(symbols.length, 14);
  b.writeUIntBE(reference & 0xffffff, 16, 3);
  b[19] = fbCount;
  let o = 20;
  for (const c of ch) {
    b.writeUInt16BE(c, o);
    o += 2;
  }
  for (const d of deltas) {
    if (d >= 0 && d <= 0xff) b[o++] = d;
    else {
      b.writeInt16BE(d, o);
      o += 2;
    }
  }
  if (padding > 0) b[b.length - 1] = padding;
  return b;
}

/** One packet's line in a feedback: its transport-wide sequence number and arrival time, or none (not received). */
export interface TwccPacketResult {
  readonly seq: number;
  /** On the receiver's clock (µs); only differences between arrivals mean anything. */
  readonly arrivalUs: number | undefined;
}

/**
 * A transport-cc feedback packet (RTCP PT 205, FMT 15, as `build` writes it and Chromium sends it) read back: every
 * packet status in order with its arrival time. Undefined for a packet too short or not of that kind.
 */
export function parseTwccFeedback(packet: Buffer): { readonly mediaSsrc: number; readonly results: readonly TwccPacketResult[] } | undefined {
  if (packet.length < 20 || packet[1] !== 205 || (packet[0]! & 0x1f) !== 15) return undefined;
  const mediaSsrc = packet.readUInt32BE(8);
  const base = packet.readUInt16BE(12);
  const count = packet.readUInt16BE(14);
  const reference = packet.readIntBE(16, 3);
  // 2-bit symbols: 0 not received, 1 small delta, 2 large delta (3 is reserved: read as not received).
  const symbols: number[] = [];
  let o = 20;
  while (symbols.length < count) {
    if (o + 2 > packet.length) return undefined;
    const chunk = packet.readUInt16BE(o);
    o += 2;
    if ((chunk & 0x8000) === 0) {
      // Run-length chunk.
      const symbol = (chunk >> 13) & 0x3;
      for (let k = chunk & 0x1fff; k > 0 && symbols.length < count; k--) symbols.push(symbol);
    } else if ((chunk & 0x4000) === 0) {
      // Status vector of fourteen 1-bit symbols: received (small delta) or not.
      for (let k = 13; k >= 0 && symbols.length < count; k--) symbols.push((chunk >> k) & 1);
    } else {
      for (let k = 6; k >= 0 && symbols.length < count; k--) symbols.push((chunk >> (2 * k)) & 0x3);
    }
  }
  const results: TwccPacketResult[] = [];
  let at = reference * REFERENCE_US;
  for (const [i, symbol] of symbols.entries()) {
    const seq = (base + i) & 0xffff;
    if (symbol !== SMALL && symbol !== LARGE) {
      results.push({ seq, arrivalUs: undefined });
      continue;
    }
    const large = symbol === LARGE;
    if (o + (large ? 2 : 1) > packet.length) return undefined;
    at += (large ? packet.readInt16BE(o) : packet[o]!) * TICK_US;
    o += large ? 2 : 1;
    results.push({ seq, arrivalUs: at });
  }
  return { mediaSsrc, results };
}
