/**
 * Opus RTP packets → an Ogg Opus stream (RFC 7845), which the audio slicer reads on its stdin instead of RTP over
 * loopback UDP (docs/recording-individual.md, "Audio slicers read Ogg on stdin": ffmpeg's cost per audio stream
 * halves). Pure: bytes in, bytes out. One Opus packet per page; granule positions (48 kHz samples, RFC 7845 §4)
 * carry the RTP timestamps.
 */
import { rtpPayloadOffset } from './aac-output.ts';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** Ogg's CRC-32 (polynomial 0x04c11db7, not reflected, no final xor: RFC 3533 §6). */
export function oggCrc(b: Uint8Array): number {
  let crc = 0;
  for (const x of b) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ x) & 0xff]!) >>> 0;
  return crc;
}

/** Samples (at 48 kHz) in one Opus packet, from its TOC byte (RFC 6716 §3.1); 0 when the packet is malformed. */
export function opusPacketSamples(payload: Uint8Array): number {
  if (payload.length === 0) return 0;
  const toc = payload[0]!;
  const config = toc >> 3;
  const tenthsMs = config < 12 ? [100, 200, 400, 600][config & 3]! : config < 16 ? [100, 200][config & 1]! : [25, 50, 100, 200][config & 3]!;
  const code = toc & 3;
  const frames = code === 0 ? 1 : code < 3 ? 2 : payload.length > 1 ? payload[1]! & 0x3f : 0;
  return (frames * tenthsMs * 48) / 10;
}

const SERIAL = 0x5245454c;

export class OggOpusWriter {
  #seq = 0;
  #lastTs = 0;
  /**
   * The last packet taken, not yet written; start and end in samples from the first packet (unwrapped: RTP
   * timestamps are 32-bit and wrap after 24.8 hours at 48 kHz).
   */
  #held: { readonly payload: Buffer; readonly start: number; readonly end: number } | undefined;

  /** The two header pages (OpusHead, OpusTags) for a stream decoded as `channels`. */
  header(channels: 1 | 2): Buffer {
    const head = Buffer.alloc(19);
    head.write('OpusHead', 0, 'latin1');
    head[8] = 1;
    head[9] = channels;
    head.writeUInt16LE(0, 10); // pre-skip: RTP has no encoder delay to signal; the first sample is time 0
    head.writeUInt32LE(48000, 12);
    head.writeInt16LE(0, 16);
    head[18] = 0;
    const vendor = Buffer.from('reeltime', 'latin1');
    const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
    tags.write('OpusTags', 0, 'latin1');
    tags.writeUInt32LE(vendor.length, 8);
    vendor.copy(tags, 12);
    return Buffer.concat([this.#page(head, 0, 0x02), this.#page(tags, 0, 0)]);
  }

  /**
   * Takes one RTP packet and returns the page of the packet before it, if any. ffmpeg's Ogg reader starts each
   * page's packet where the previous page's granule position says, so a page is written once the next packet is
   * known and its granule position is where that next packet starts: a gap (loss, DTX) stays a gap and every
   * packet keeps its RTP time. Packets with no payload, duplicates and packets at or before one already taken
   * (too late) are dropped, as ffmpeg's RTP input did.
   */
  packet(rtp: Buffer): Buffer | undefined {
    const off = rtpPayloadOffset(rtp);
    if (off === undefined) return undefined;
    let end = rtp.length;
    if (rtp[0]! & 0x20) end -= rtp[end - 1]!; // RTP padding
    if (end <= off) return undefined;
    const ts = rtp.readUInt32BE(4);
    let start = 0;
    if (this.#held) {
      start = this.#held.start + ((ts - this.#lastTs) | 0);
      if (start <= this.#held.start) return undefined;
    }
    const out = this.#held ? this.#page(this.#held.payload, Math.max(start, this.#held.end), 0) : undefined;
    const payload = Buffer.from(rtp.subarray(off, end));
    this.#held = { payload, start, end: start + opusPacketSamples(payload) };
    this.#lastTs = ts;
    return out;
  }

  /** The page of the last packet taken, at the end of the stream. */
  flush(): Buffer | undefined {
    const h = this.#held;
    this.#held = undefined;
    return h ? this.#page(h.payload, h.end, 0) : undefined;
  }

  #page(data: Uint8Array, granule: number, type: number): Buffer {
    const lacing: number[] = [];
    let left = data.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
    const page = Buffer.alloc(27 + lacing.length + data.length);
    page.write('OggS', 0, 'latin1');
    page[5] = type;
    page.writeBigUInt64LE(BigInt(granule), 6);
    page.writeUInt32LE(SERIAL, 14);
    page.writeUInt32LE(this.#seq++, 18);
    page[26] = lacing.length;
    Buffer.from(lacing).copy(page, 27);
    page.set(data, 27 + lacing.length);
    page.writeUInt32LE(oggCrc(page), 22);
    return page;
  }
}
