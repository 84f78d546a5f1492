/**
 * Opus packets as an Ogg stream (RFC 7845), the container ffmpeg's `ogg` demuxer reads from a pipe, so an Opus
 * decoder can be fed one write per packet (docs/recording-mix.md, "Audio decoding"). One packet per page; the
 * granule positions count the samples written, without gaps: the demuxer dates each packet from the previous
 * page's granule anyway, so output sample k of the decoder is sample k of what was written, and the caller keeps
 * the RTP timestamp of each packet to place them. Pure.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

/** Ogg's page checksum: CRC-32, polynomial 0x04c11db7, not reflected, initial value 0. */
export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0;
  return crc;
}

const HEADER_TYPE = { continued: 0x01, first: 0x02, last: 0x04 } as const;

export class OggOpusWriter {
  #sequence = 0;
  #granule = 0;

  constructor(
    private readonly channels: number,
    private readonly serial = 0x52544d58, // "RTMX"
  ) {
    if (!(Number.isInteger(channels) && channels >= 1 && channels <= 2)) throw new RangeError(`Opus channels must be 1 or 2, got ${channels}`);
  }

  /** The identification and comment header pages: first in the stream. */
  headers(): Buffer {
    const head = Buffer.alloc(19);
    head.write('OpusHead', 0, 'latin1');
    head[8] = 1; // version
    head[9] = this.channels;
    head.writeUInt16LE(0, 10); // pre-skip: none, so the decoder's output starts with the first packet's first sample
    head.writeUInt32LE(48_000, 12);
    head.writeInt16LE(0, 16); // output gain
    head[18] = 0; // channel mapping family 0: mono or stereo
    const vendor = 'reeltime';
    const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
    tags.write('OpusTags', 0, 'latin1');
    tags.writeUInt32LE(vendor.length, 8);
    tags.write(vendor, 12, 'latin1');
    tags.writeUInt32LE(0, 12 + vendor.length);
    return Buffer.concat([this.#page(head, HEADER_TYPE.first, 0), this.#page(tags, 0, 0)]);
  }

  /** One audio packet of `samples` samples as one page. */
  packet(payload: Uint8Array, samples: number): Buffer {
    this.#granule += samples;
    return this.#page(payload, 0, this.#granule);
  }

  #page(payload: Uint8Array, headerType: number, granule: number): Buffer {
    const segments = Math.floor(payload.length / 255) + 1;
    if (segments > 255) throw new RangeError(`Ogg packet too large: ${payload.length} bytes`);
    const page = Buffer.alloc(27 + segments + payload.length);
    page.write('OggS', 0, 'latin1');
    page[4] = 0;
    page[5] = headerType;
    page.writeUInt32LE(granule % 0x1_0000_0000, 6);
    page.writeUInt32LE(Math.floor(granule / 0x1_0000_0000), 10);
    page.writeUInt32LE(this.serial, 14);
    page.writeUInt32LE(this.#sequence++, 18);
    page[26] = segments;
    // Lacing: 255 for each full segment, then the remainder (0 when the length is a multiple of 255).
    page.fill(255, 27, 27 + segments - 1);
    page[27 + segments - 1] = payload.length % 255;
    page.set(payload, 27 + segments);
    page.writeUInt32LE(oggCrc(page), 22);
    return page;
  }
}
