/**
 * FLV (Adobe's Flash Video file format, version 10.1, annex E): the container RTMP's audio, video and data messages
 * map to one to one. The RTMP listener hands a publisher's media to ffmpeg as an FLV stream on its stdin.
 */
export const FLV_TAG = Object.freeze({ audio: 8, video: 9, script: 18 });

/** The file header (audio and video present) and the first, empty, previous-tag size. */
export function flvHeader(): Buffer {
  return Buffer.from([0x46, 0x4c, 0x56, 0x01, 0x05, 0, 0, 0, 9, 0, 0, 0, 0]);
}

/** One tag: its 11-byte header, the data, and the previous-tag size that follows every tag. */
export function flvTag(type: number, timestampMs: number, data: Buffer): Buffer {
  const head = Buffer.alloc(11);
  head[0] = type;
  head.writeUIntBE(data.length, 1, 3);
  const ts = timestampMs >>> 0;
  head.writeUIntBE(ts & 0xffffff, 4, 3);
  head[7] = (ts >>> 24) & 0xff;
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(11 + data.length);
  return Buffer.concat([head, data, tail]);
}

export interface FlvTagRead {
  readonly type: number;
  /** Milliseconds (the 24-bit field and its extension byte). */
  readonly timestamp: number;
  readonly data: Buffer;
}

export class FlvFormatError extends Error {
  override readonly name = 'FlvFormatError';
}

/** The largest tag accepted (the 24-bit size allows 16 MiB; a keyframe is far smaller). */
const MAX_TAG_BYTES = 8 * 1024 * 1024;

/** Reads an FLV stream as it arrives (ffmpeg's `-f flv pipe:`): the header once, then whole tags. */
export class FlvReader {
  #pending: Buffer = Buffer.alloc(0);
  #headerRead = false;

  /** Takes bytes as they arrive; returns the tags they complete, in order. Throws FlvFormatError. */
  push(data: Buffer): FlvTagRead[] {
    let b = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
    const out: FlvTagRead[] = [];
    if (!this.#headerRead) {
      if (b.length < 9) return this.#keep(b, out);
      if (b.toString('latin1', 0, 3) !== 'FLV') throw new FlvFormatError('not an FLV stream (no "FLV" signature)');
      const headerBytes = b.readUInt32BE(5);
      // The header, then the first previous-tag size (always 0).
      if (b.length < headerBytes + 4) return this.#keep(b, out);
      b = b.subarray(headerBytes + 4);
      this.#headerRead = true;
    }
    let pos = 0;
    while (b.length - pos >= 11) {
      const size = b.readUIntBE(pos + 1, 3);
      if (size > MAX_TAG_BYTES) throw new FlvFormatError(`FLV tag of ${size} bytes is over the ${MAX_TAG_BYTES}-byte limit`);
      const end = pos + 11 + size + 4;
      if (b.length < end) break;
      const timestamp = (b.readUIntBE(pos + 4, 3) | (b[pos + 7]! << 24)) >>> 0;
      out.push({ type: b[pos]! & 0x1f, timestamp, data: Buffer.from(b.subarray(pos + 11, pos + 11 + size)) });
      pos = end;
    }
    return this.#keep(b.subarray(pos), out);
  }

  #keep(rest: Buffer, out: FlvTagRead[]): FlvTagRead[] {
    this.#pending = Buffer.from(rest);
    return out;
  }
}
