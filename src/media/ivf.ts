/**
 * IVF, the simplest container with a timestamp per frame: a 32-byte file header, then per frame a 12-byte header
 * (size, 64-bit timestamp) and the frame. ffmpeg reads H.264 from it (fourcc `H264`) as whole frames with the
 * timestamps given (its demuxer parses headers only), which its H.264 RTP input does not do. Pure.
 */

/** Timestamps in RTP's 90 kHz video clock. */
export const IVF_VIDEO_TIMEBASE = 90_000;

/** The file header; width and height may be 0 (ffmpeg reads the size from the stream's SPS). */
export function ivfFileHeader(fourcc: string, width = 0, height = 0, timebase = IVF_VIDEO_TIMEBASE): Buffer {
  if (fourcc.length !== 4) throw new Error(`an IVF fourcc has 4 characters: ${JSON.stringify(fourcc)}`);
  const b = Buffer.alloc(32);
  b.write('DKIF', 0, 'latin1');
  b.writeUInt16LE(0, 4); // version
  b.writeUInt16LE(32, 6); // header size
  b.write(fourcc, 8, 'latin1');
  b.writeUInt16LE(width, 12);
  b.writeUInt16LE(height, 14);
  b.writeUInt32LE(timebase, 16); // time base denominator
  b.writeUInt32LE(1, 20); // numerator
  b.writeUInt32LE(0, 24); // frame count: unknown while live (ffmpeg does not need it)
  return b;
}

/** One frame's header: its size and timestamp (in the file's time base). */
export function ivfFrameHeader(size: number, timestamp: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt32LE(size, 0);
  b.writeBigUInt64LE(BigInt(timestamp), 4);
  return b;
}

/** Extends 32-bit RTP timestamps to a count that keeps rising across the wrap (RFC 3550 §5.1). */
export class RtpTimestampUnwrapper {
  #last: number | undefined;
  #extended = 0;

  /** The extended value of `timestamp`, relative to the first one (which is 0). */
  next(timestamp: number): number {
    if (this.#last !== undefined) this.#extended += (timestamp - this.#last) | 0;
    this.#last = timestamp;
    return this.#extended;
  }
}
