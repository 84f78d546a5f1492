/**
 * Opus packets as far as the mix's decoder and the recorder's loss repair read them: the TOC byte (RFC 6716 §3.1).
 */

/** Samples at 48 kHz in one Opus packet, from its TOC byte (RFC 6716 §3.1), or undefined if it is malformed. */
export function opusPacketSamples(packet: Uint8Array): number | undefined {
  const toc = packet[0];
  if (toc === undefined) return undefined;
  const config = toc >> 3;
  const frame = config < 12 ? [480, 960, 1920, 2880][config & 3]! : config < 16 ? [480, 960][config & 1]! : [120, 240, 480, 960][config & 3]!;
  const code = toc & 3;
  let frames: number;
  if (code === 0) frames = 1;
  else if (code === 1 || code === 2) frames = 2;
  else {
    const count = packet[1];
    if (count === undefined) return undefined;
    frames = count & 0x3f;
  }
  const samples = frames * frame;
  // At most 120 ms per packet (RFC 6716 §3.2.5).
  return samples > 0 && samples <= 5760 ? samples : undefined;
}

/** Configurations 0–15 are SILK-only or hybrid: the modes whose packets can carry the frame before (LBRR, §4.2.4). */
export function opusHasSilk(packet: Uint8Array): boolean {
  return packet.length > 1 && packet[0]! >> 3 < 16;
}
