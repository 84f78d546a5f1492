/**
 * AMF0, the value encoding of RTMP commands (Adobe's "Action Message Format AMF 0" specification): the types RTMP
 * command messages use. Decoding refuses what it does not know rather than guessing, so a malformed command ends the
 * connection instead of being misread.
 */
export type Amf0Value = number | boolean | string | null | undefined | Amf0Object | readonly Amf0Value[];
export interface Amf0Object {
  readonly [key: string]: Amf0Value;
}

const NUMBER = 0x00;
const BOOLEAN = 0x01;
const STRING = 0x02;
const OBJECT = 0x03;
const NULL = 0x05;
const UNDEFINED = 0x06;
const ECMA_ARRAY = 0x08;
const OBJECT_END = 0x09;
const STRICT_ARRAY = 0x0a;
const DATE = 0x0b;
const LONG_STRING = 0x0c;

/** Nesting deeper than this is refused (a hostile command cannot exhaust the stack). */
const MAX_DEPTH = 16;

export class Amf0Error extends Error {
  override readonly name = 'Amf0Error';
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  take(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw new Amf0Error(`AMF0 value runs past the message (${n} bytes at ${this.pos} of ${this.buf.length})`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  u8 = () => this.take(1)[0]!;
  u16 = () => this.take(2).readUInt16BE(0);
  u32 = () => this.take(4).readUInt32BE(0);
  shortString = () => this.take(this.u16()).toString('utf8');
  /** The next byte, left unread. */
  peek(): number {
    const b = this.take(1)[0]!;
    this.pos--;
    return b;
  }
}

function readProperties(r: Reader, depth: number): Amf0Object {
  const out: Record<string, Amf0Value> = {};
  for (;;) {
    const key = r.shortString();
    if (key === '' && r.peek() === OBJECT_END) {
      r.u8();
      return out;
    }
    out[key] = readValue(r, depth + 1);
  }
}

function readValue(r: Reader, depth: number): Amf0Value {
  if (depth > MAX_DEPTH) throw new Amf0Error(`AMF0 nesting deeper than ${MAX_DEPTH}`);
  const type = r.u8();
  switch (type) {
    case NUMBER:
      return r.take(8).readDoubleBE(0);
    case BOOLEAN:
      return r.u8() !== 0;
    case STRING:
      return r.shortString();
    case LONG_STRING:
      return r.take(r.u32()).toString('utf8');
    case OBJECT:
      return readProperties(r, depth);
    case ECMA_ARRAY:
      r.u32(); // the count is a hint; the properties end with the object-end marker
      return readProperties(r, depth);
    case STRICT_ARRAY: {
      const n = r.u32();
      const out: Amf0Value[] = [];
      for (let i = 0; i < n; i++) out.push(readValue(r, depth + 1));
      return out;
    }
    case DATE: {
      const ms = r.take(8).readDoubleBE(0);
      r.take(2); // time zone, unused by the format's users
      return ms;
    }
    case NULL:
      return null;
    case UNDEFINED:
      return undefined;
    default:
      throw new Amf0Error(`AMF0 type 0x${type.toString(16)} is not supported`);
  }
}

/** Every value of a command message, in order. */
export function decodeAmf0(buf: Buffer): Amf0Value[] {
  const r = new Reader(buf);
  const out: Amf0Value[] = [];
  while (!r.done) out.push(readValue(r, 0));
  return out;
}

function shortString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  if (b.length > 0xffff) throw new Amf0Error('AMF0 short string longer than 65535 bytes');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}

function encodeValue(v: Amf0Value): Buffer {
  if (v === null) return Buffer.from([NULL]);
  if (v === undefined) return Buffer.from([UNDEFINED]);
  if (typeof v === 'number') {
    const b = Buffer.alloc(9);
    b[0] = NUMBER;
    b.writeDoubleBE(v, 1);
    return b;
  }
  if (typeof v === 'boolean') return Buffer.from([BOOLEAN, v ? 1 : 0]);
  if (typeof v === 'string') {
    const s = Buffer.from(v, 'utf8');
    if (s.length <= 0xffff) return Buffer.concat([Buffer.from([STRING]), shortString(v)]);
    const head = Buffer.alloc(5);
    head[0] = LONG_STRING;
    head.writeUInt32BE(s.length, 1);
    return Buffer.concat([head, s]);
  }
  if (Array.isArray(v)) {
    const head = Buffer.alloc(5);
    head[0] = STRICT_ARRAY;
    head.writeUInt32BE(v.length, 1);
    return Buffer.concat([head, ...v.map(encodeValue)]);
  }
  const parts: Buffer[] = [Buffer.from([OBJECT])];
  for (const [k, x] of Object.entries(v as Amf0Object)) parts.push(shortString(k), encodeValue(x));
  parts.push(Buffer.from([0, 0, OBJECT_END]));
  return Buffer.concat(parts);
}

/** The values of a command message, encoded one after another. */
export function encodeAmf0(values: readonly Amf0Value[]): Buffer {
  return Buffer.concat(values.map(encodeValue));
}
