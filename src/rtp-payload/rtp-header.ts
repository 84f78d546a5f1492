/** The RTP header fields the recorder looks at (RFC 3550 §5.1), read from a packet as received. Pure. */

export interface RtpHeaderFields {
  readonly payloadType: number;
  readonly sequenceNumber: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly marker: boolean;
  /** Offset of the payload (after CSRCs and the header extension). */
  readonly payloadOffset: number;
  /** End of the payload (before padding). */
  readonly payloadEnd: number;
}

export function readRtpHeader(packet: Uint8Array): RtpHeaderFields | undefined {
  if (packet.length < 12 || packet[0]! >> 6 !== 2) return undefined;
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  let offset = 12 + 4 * (packet[0]! & 0x0f);
  if (packet[0]! & 0x10) {
    if (packet.length < offset + 4) return undefined;
    offset += 4 + 4 * view.getUint16(offset + 2);
  }
  let end = packet.length;
  if (packet[0]! & 0x20) end -= packet[packet.length - 1]!;
  if (offset > end) return undefined;
  return {
    payloadType: packet[1]! & 0x7f,
    marker: (packet[1]! & 0x80) !== 0,
    sequenceNumber: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payloadOffset: offset,
    payloadEnd: end,
  };
}

/**
 * RTCP on a port shared with RTP: packet types 200-206 (SR, RR, SDES, BYE, APP, transport and payload feedback) share
 * the first byte's layout with RTP; the second byte tells them apart (RFC 5761 §4).
 */
export function isRtcp(packet: Uint8Array): boolean {
  return packet.length >= 2 && packet[1]! >= 200 && packet[1]! <= 206;
}
