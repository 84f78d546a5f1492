/**
 * RTMP's chunk stream (Adobe RTMP specification, section 5.3): messages cut into chunks of at most the sender's
 * chunk size, each with a basic header (format and chunk stream id) and a message header of 11, 7, 3 or 0 bytes that
 * repeats only what changed. ChunkReader reassembles what a client sends; encodeMessage cuts what we send.
 */

/** Message types this server reads or sends. */
export const MSG = Object.freeze({
  setChunkSize: 1,
  abort: 2,
  ack: 3,
  userControl: 4,
  windowAckSize: 5,
  setPeerBandwidth: 6,
  audio: 8,
  video: 9,
  dataAmf3: 15,
  commandAmf3: 17,
  dataAmf0: 18,
  commandAmf0: 20,
});

export interface RtmpMessage {
  readonly type: number;
  readonly streamId: number;
  /** Milliseconds, as the client stamps it (32 bits, wraps). */
  readonly timestamp: number;
  readonly payload: Buffer;
}

export class RtmpProtocolError extends Error {
  override readonly name = 'RtmpProtocolError';
}

interface ChunkStream {
  timestamp: number;
  delta: number;
  length: number;
  type: number;
  streamId: number;
  extended: boolean;
  parts: Buffer[];
  received: number;
}

/** The largest message accepted (the header's 24-bit length allows 16 MiB; a keyframe is far smaller). */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const MESSAGE_HEADER_BYTES = [11, 7, 3, 0] as const;
/**
 * Chunk streams one connection may open: encoders use a handful (control, commands, audio, video, data); the cap
 * bounds what a hostile client can make us hold in partial messages (this many times MAX_MESSAGE_BYTES at worst).
 */
const MAX_CHUNK_STREAMS = 16;

/** The size a Set Chunk Size message sets (1..16777215; the top bit is reserved). */
function chunkSizeOf(payload: Buffer): number {
  if (payload.length < 4) throw new RtmpProtocolError('Set Chunk Size without its 4 bytes');
  const size = payload.readUInt32BE(0) & 0x7fffffff;
  if (size < 1 || size > 0xffffff) throw new RtmpProtocolError(`chunk size ${size} out of 1..16777215`);
  return size;
}

export class ChunkReader {
  /** The peer's chunk size: a Set Chunk Size message changes it as soon as it is read. */
  chunkSize = 128;
  private pending: Buffer = Buffer.alloc(0);
  private readonly streams = new Map<number, ChunkStream>();

  /** Takes bytes as they arrive; returns the messages they complete, in order. Throws RtmpProtocolError. */
  push(data: Buffer): RtmpMessage[] {
    this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data]);
    const out: RtmpMessage[] = [];
    let pos = 0;
    for (;;) {
      const used = this.chunk(pos, out);
      if (used === 0) break;
      pos += used;
    }
    this.pending = pos === this.pending.length ? Buffer.alloc(0) : this.pending.subarray(pos);
    return out;
  }

  /** Reads one chunk at `p`: its length, or 0 when it has not fully arrived. */
  private chunk(p: number, out: RtmpMessage[]): number {
    const b = this.pending;
    const left = b.length - p;
    if (left < 1) return 0;
    const fmt = b[p]! >> 6;
    let csid = b[p]! & 0x3f;
    let h = 1;
    if (csid === 0) {
      if (left < 2) return 0;
      csid = 64 + b[p + 1]!;
      h = 2;
    } else if (csid === 1) {
      if (left < 3) return 0;
      csid = 64 + b[p + 1]! + b[p + 2]! * 256;
      h = 3;
    }
    const mh = MESSAGE_HEADER_BYTES[fmt as 0 | 1 | 2 | 3];
    if (left < h + mh) return 0;
    let s = this.streams.get(csid);
    if (!s) {
      if (fmt !== 0) throw new RtmpProtocolError(`chunk stream ${csid} starts with a format ${fmt} header (needs format 0)`);
      if (this.streams.size >= MAX_CHUNK_STREAMS) throw new RtmpProtocolError(`more than ${MAX_CHUNK_STREAMS} chunk streams`);
      s = { timestamp: 0, delta: 0, length: 0, type: 0, streamId: 0, extended: false, parts: [], received: 0 };
    }
    const m = p + h;
    const tsField = fmt < 3 ? b.readUIntBE(m, 3) : 0;
    const extended = fmt < 3 ? tsField === 0xffffff : s.extended;
    const ext = extended ? 4 : 0;
    if (left < h + mh + ext) return 0;
    const tsValue = extended ? b.readUInt32BE(m + mh) : tsField;
    const starting = s.received === 0 || fmt < 3;
    const length = fmt < 2 ? b.readUIntBE(m + 3, 3) : s.length;
    if (length > MAX_MESSAGE_BYTES) throw new RtmpProtocolError(`message of ${length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
    const already = starting ? 0 : s.received;
    const size = Math.min(this.chunkSize, length - already);
    const start = p + h + mh + ext;
    if (b.length < start + size) return 0;
    // The chunk is complete: only now does it change the chunk stream's state.
    if (starting) {
      if (fmt === 0) {
        s.timestamp = tsValue;
        s.delta = tsValue;
        s.streamId = b.readUInt32LE(m + 7);
      } else if (fmt < 3 || s.received === 0) {
        if (fmt < 3) s.delta = tsValue;
        s.timestamp = (s.timestamp + s.delta) >>> 0;
      }
      if (fmt < 2) {
        s.length = length;
        s.type = b[m + 6]!;
      }
      s.parts = [];
      s.received = 0;
    }
    s.extended = extended;
    this.streams.set(csid, s);
    s.parts.push(Buffer.from(b.subarray(start, start + size)));
    s.received += size;
    if (s.received >= s.length) {
      const payload = s.parts.length === 1 ? s.parts[0]! : Buffer.concat(s.parts);
      // Set Chunk Size applies to the very next chunk, which may be in the same read.
      if (s.type === MSG.setChunkSize) this.chunkSize = chunkSizeOf(payload);
      out.push({ type: s.type, streamId: s.streamId, timestamp: s.timestamp, payload });
      s.parts = [];
      s.received = 0;
    }
    return start + size - p;
  }
}

/** One message as chunks of `chunkSize` on chunk stream `csid` (2..63): a format 0 header, then format 3 ones. */
export function encodeMessage(csid: number, msg: RtmpMessage, chunkSize: number): Buffer {
  if (csid < 2 || csid > 63) throw new RangeError(`chunk stream id ${csid} out of 2..63`);
  const extended = msg.timestamp >= 0xffffff;
  const head = Buffer.alloc(12 + (extended ? 4 : 0));
  head[0] = csid;
  head.writeUIntBE(extended ? 0xffffff : msg.timestamp, 1, 3);
  head.writeUIntBE(msg.payload.length, 4, 3);
  head[7] = msg.type;
  head.writeUInt32LE(msg.streamId, 8);
  if (extended) head.writeUInt32BE(msg.timestamp >>> 0, 12);
  const parts: Buffer[] = [head];
  for (let off = 0; off < msg.payload.length || off === 0; off += chunkSize) {
    if (off > 0) {
      const cont = Buffer.alloc(1 + (extended ? 4 : 0));
      cont[0] = 0xc0 | csid;
      if (extended) cont.writeUInt32BE(msg.timestamp >>> 0, 1);
      parts.push(cont);
    }
    parts.push(msg.payload.subarray(off, off + chunkSize));
    if (msg.payload.length === 0) break;
  }
  return Buffer.concat(parts);
}
