import { startsKeyframe } from '../../rtp-payload/index.ts';

/** What the cache reads of a packet: enough to tell a new stream and a keyframe apart. */
export interface GopPacket {
  readonly header: { readonly ssrc: number; readonly timestamp: number };
  readonly payload: Buffer;
  readonly serializeSize: number;
}

/**
 * A GOP longer than this is not kept (a subscriber then waits for the next keyframe, as without the cache): about
 * 20 s of 3 Mbit/s, more than any encoder's keyframe interval an ingest is likely to be given.
 */
export const GOP_CACHE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The video packets since the publisher's latest keyframe, for a publisher that cannot be asked for one (an ingest
 * relays an encoder's or a camera's stream: its keyframes come when the source sends them). A subscriber that joins
 * gets these first and starts at once, from that keyframe, instead of waiting up to a whole GOP (docs/channel.md,
 * "Clean starts"). A GOP starts with its keyframe's whole access unit: the packets of the keyframe's timestamp that
 * came before its first slice (H.264's SPS and PPS, which a decoder needs first) are kept too. Kept in arrival
 * order; a new SSRC (a new stream) or a GOP past `maxBytes` empties it until the next keyframe. Pure: no I/O.
 */
export class GopCache<P extends GopPacket> {
  #packets: P[] = [];
  #bytes = 0;
  #ssrc: number | undefined;
  /** False after an overflow or a new stream, until a keyframe starts a GOP again. */
  #keeping = false;
  /** The packets of the latest timestamp so far (the start of an access unit a keyframe may still come in). */
  #unit: P[] = [];

  constructor(
    private readonly codec: string,
    private readonly maxBytes = GOP_CACHE_MAX_BYTES,
  ) {}

  push(packet: P): void {
    if (packet.header.ssrc !== this.#ssrc) {
      this.#ssrc = packet.header.ssrc;
      this.#clear(false);
      this.#unit = [];
    }
    if (this.#unit.length > 0 && this.#unit[0]!.header.timestamp !== packet.header.timestamp) this.#unit = [];
    if (startsKeyframe(this.codec, packet.payload)) {
      const before = this.#unit;
      this.#clear(true);
      for (const p of before) this.#keep(p);
    }
    this.#unit.push(packet);
    this.#keep(packet);
  }

  #keep(packet: P): void {
    if (!this.#keeping) return;
    this.#bytes += packet.serializeSize;
    if (this.#bytes > this.maxBytes) return this.#clear(false);
    this.#packets.push(packet);
  }

  /** The current GOP from its keyframe, oldest first; empty while none is kept. */
  packets(): readonly P[] {
    return this.#packets;
  }

  #clear(keeping: boolean): void {
    this.#packets = [];
    this.#bytes = 0;
    this.#keeping = keeping;
  }
}
