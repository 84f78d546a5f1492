import { Writable } from 'node:stream';
import { FlvKinds, type FlvKindsSeen } from './flv-kinds.ts';

/**
 * Where an accepted RTMP publish's FLV goes first: held (and read by `FlvKinds`) until the stream shows which kinds it
 * carries, then, once `attach` names the ingest ffmpeg's stdin, handed on from its first byte, with back-pressure.
 * `FlvKinds` decides within 4 MiB, so no more is held (the RTMP session pauses its socket while this is full).
 */
export class HeldFlv extends Writable {
  readonly #reader = new FlvKinds();
  #held: Buffer[] = [];
  #dest: Writable | undefined;
  #found: (seen: FlvKindsSeen) => void = () => undefined;
  #seen: FlvKindsSeen | undefined;
  /** The kinds the stream carries, once known. */
  readonly kinds = new Promise<FlvKindsSeen>((resolve) => (this.#found = resolve));

  /**
   * Hands the stream on to `dest` from its first byte. The FLV header's flags are set to the kinds found: ffmpeg's
   * FLV reader waits for every kind the header announces before it starts (an announced audio stream that never
   * comes held a camera-only encoder's video back past the publish's start timeout).
   */
  attach(dest: Writable): void {
    this.#dest = dest;
    const [first, ...rest] = this.#held;
    if (first) dest.write(this.#seen ? withKindFlags(first, this.#seen) : first);
    for (const b of rest) dest.write(b);
    this.#held = [];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const dest = this.#dest;
    if (!dest) {
      this.#held.push(chunk);
      const seen = this.#reader.push(chunk);
      if (seen && !this.#seen) {
        this.#seen = seen;
        this.#found(seen);
      }
      return callback();
    }
    if (dest.destroyed || dest.write(chunk)) return callback();
    dest.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#dest?.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#dest?.destroy();
    callback(error);
  }
}

/** An FLV stream's first bytes with the header's TypeFlags (audio 0x04, video 0x01) set to `seen`. */
function withKindFlags(first: Buffer, seen: FlvKindsSeen): Buffer {
  if (first.length < 5 || first.toString('latin1', 0, 3) !== 'FLV') return first;
  const out = Buffer.from(first);
  out[4] = (seen.audio ? 0x04 : 0) | (seen.video ? 0x01 : 0);
  return out;
}
