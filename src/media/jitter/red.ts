/**
 * RFC 2198 redundant audio (`red/48000/2`, what Chromium offers for Opus): one RTP payload carrying the primary
 * encoding and earlier ones. Pure. The channel node does not negotiate RED today (src/channel/webrtc/peer-config.ts
 * lists VP8, H.264 and Opus only), so the recorder never receives it; this is the unwrapper it will use when it does:
 * the primary block becomes the packet, each redundant block can stand in for the packet `k` numbers back whose
 * timestamp is `timestamp - tsOffset` (StreamRepair's gap filling).
 */

export interface RedBlock {
  readonly payloadType: number;
  /** How far before the packet's timestamp this block's media starts (RTP ticks); 0 for the primary. */
  readonly tsOffset: number;
  readonly payload: Buffer;
}

export interface RedPayload {
  /** Redundant blocks, oldest first (the order they are carried in). */
  readonly redundant: readonly RedBlock[];
  readonly primary: RedBlock;
}

export class RedFormatError extends Error {
  constructor(readonly field: 'header' | 'blockLength', message: string) {
    super(`RED payload: ${message}`);
  }
}

/** Splits a RED payload into its blocks; throws RedFormatError naming what is wrong. */
export function unwrapRed(payload: Buffer): RedPayload {
  const headers: { payloadType: number; tsOffset: number; length: number }[] = [];
  let i = 0;
  for (;;) {
    if (i >= payload.length) throw new RedFormatError('header', 'ends inside the block headers');
    const b0 = payload[i]!;
    if ((b0 & 0x80) === 0) {
      i += 1;
      break;
    }
    if (i + 4 > payload.length) throw new RedFormatError('header', 'a redundant block header is cut short');
    const word = payload.readUInt32BE(i);
    headers.push({ payloadType: (word >>> 24) & 0x7f, tsOffset: (word >>> 10) & 0x3fff, length: word & 0x3ff });
    i += 4;
  }
  const primaryType = payload[i - 1]! & 0x7f;
  const redundant: RedBlock[] = [];
  for (const h of headers) {
    if (i + h.length > payload.length) throw new RedFormatError('blockLength', `a block of ${h.length} bytes goes past the payload's end`);
    redundant.push({ payloadType: h.payloadType, tsOffset: h.tsOffset, payload: payload.subarray(i, i + h.length) });
    i += h.length;
  }
  return { redundant, primary: { payloadType: primaryType, tsOffset: 0, payload: payload.subarray(i) } };
}
