// Little-endian byte codec of the AccessToken2 payload (docs/token.md, Format: "Primitives"). Pure, no I/O.

import { isUtf8 } from 'node:buffer';

/** Thrown by the reader on any out-of-bounds or invalid read; the parser turns it into a 'malformed' result. */
export class TokenFormatError extends Error {
  override readonly name = 'TokenFormatError';
}

/** Thrown by the writer when a value does not fit its field; builders turn it into ''. */
export class TokenValueError extends Error {
  override readonly name = 'TokenValueError';
}

const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/**
 * Growable writer over one buffer. Builders reuse a single module-level instance (building is synchronous),
 * so a token costs no intermediate Buffers.
 */
export class ByteWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  reset(): this {
    this.pos = 0;
    return this;
  }

  private ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u16(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > U16_MAX) throw new TokenValueError(`u16 out of range: ${v}`);
    this.ensure(2);
    this.buf.writeUInt16LE(v, this.pos);
    this.pos += 2;
    return this;
  }

  i16(v: number): this {
    if (!Number.isInteger(v) || v < -0x8000 || v > 0x7fff) throw new TokenValueError(`i16 out of range: ${v}`);
    this.ensure(2);
    this.buf.writeInt16LE(v, this.pos);
    this.pos += 2;
    return this;
  }

  /** Fractions are truncated, as the official Node builder does; anything outside u32 is refused. */
  u32(v: number): this {
    if (!Number.isFinite(v) || v < 0 || v >= U32_MAX + 1) throw new TokenValueError(`u32 out of range: ${v}`);
    this.ensure(4);
    this.buf.writeUInt32LE(Math.trunc(v), this.pos);
    this.pos += 4;
    return this;
  }

  /** u16 byte length, then the UTF-8 bytes. */
  str(s: string): this {
    // A UTF-16 code unit is at most 3 UTF-8 bytes, so this bound avoids measuring the string first.
    this.ensure(2 + s.length * 3);
    const n = this.buf.write(s, this.pos + 2, 'utf8');
    if (n > U16_MAX) throw new TokenValueError(`string longer than ${U16_MAX} bytes`);
    this.buf.writeUInt16LE(n, this.pos);
    this.pos += 2 + n;
    return this;
  }

  /** Reserves n bytes (filled later, e.g. the signature) and returns their offset. */
  skip(n: number): number {
    this.ensure(n);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  view(start = 0, end = this.pos): Buffer {
    return this.buf.subarray(start, end);
  }
}

/** Bounds-checked reader: every read past the end throws TokenFormatError. */
export class ByteReader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number, what: string): void {
    if (this.pos + n > this.end) {
      throw new TokenFormatError(`truncated: ${what} needs ${n} bytes at offset ${this.pos}, ${this.remaining} left`);
    }
  }

  u16(what = 'u16'): number {
    this.need(2, what);
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }

  i16(what = 'i16'): number {
    this.need(2, what);
    const v = this.buf.readInt16LE(this.pos);
    this.pos += 2;
    return v;
  }

  u32(what = 'u32'): number {
    this.need(4, what);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  /** Length-prefixed bytes, as a view into the buffer (no copy). */
  bytes(what = 'bytes'): Buffer {
    const n = this.u16(`${what} length`);
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Length-prefixed UTF-8 text; invalid UTF-8 is refused rather than silently replaced. */
  str(what = 'string'): string {
    const b = this.bytes(what);
    if (b.length === 0) return '';
    if (!isUtf8(b)) throw new TokenFormatError(`${what} is not valid UTF-8`);
    return b.toString('utf8');
  }
}
