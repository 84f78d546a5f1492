/** An RTP packet for the payload tests: a 12-byte header (payload type and SSRC as given) and the payload. */
export function rtp(seq: number, timestamp: number, marker: boolean, payload: Buffer, o: { readonly payloadType?: number; readonly ssrc?: number } = {}): Buffer {
  const h = Buffer.alloc(12);
  h[0] = 0x80;
  h[1] = (marker ? 0x80 : 0) | (o.payloadType ?? 96);
  h.writeUInt16BE(seq & 0xffff, 2);
  h.writeUInt32BE(timestamp >>> 0, 4);
  h.writeUInt32BE(o.ssrc ?? 0xabcd, 8);
  return Buffer.concat([h, payload]);
}
