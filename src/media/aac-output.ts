/**
 * How a transcoded audio slice is encoded (docs/recording-individual.md, "Audio channels and the AAC encoder").
 * Pure: the channel count follows what the publisher sends, read from the Opus packets themselves (RFC 6716 §3.1:
 * bit 2 of the TOC byte says stereo) or its `sprop-stereo` fmtp (RFC 7587 §6.1: absent means mono). A mono source
 * is encoded as mono AAC: duplicating it into two channels carried no information and doubled the encoder's work.
 */

/** AAC bitrate of transcoded audio slices: the hosted service's individual-mode audio (docs/recording-individual.md). */
export const AAC_BITRATE = '64k';

/** Offset of the payload in an RTP packet (RFC 3550 §5.1: CSRCs and a header extension come first), if any. */
export function rtpPayloadOffset(packet: Buffer): number | undefined {
  if (packet.length < 12 || packet[0]! >> 6 !== 2) return undefined;
  let off = 12 + 4 * (packet[0]! & 0x0f);
  if (packet[0]! & 0x10) {
    if (packet.length < off + 4) return undefined;
    off += 4 + 4 * packet.readUInt16BE(off + 2);
  }
  return off < packet.length ? off : undefined;
}

/** Is this Opus RTP packet's frame coded in stereo? undefined when the packet has no payload to tell. */
export function opusPacketStereo(packet: Buffer): boolean | undefined {
  const off = rtpPayloadOffset(packet);
  return off === undefined ? undefined : (packet[off]! & 0x04) !== 0;
}

/** `sprop-stereo=1` in an Opus fmtp: the sender said it is likely to send stereo. */
export function fmtpStereo(fmtp: string | undefined): boolean {
  return /(^|;)\s*sprop-stereo\s*=\s*1\s*(;|$)/.test(fmtp ?? '');
}

/**
 * Channels of the AAC output: 2 when the sender announced stereo or any of the packets seen before the encoder
 * starts is coded in stereo, else 1.
 */
export function aacChannels(fmtp: string | undefined, firstPackets: readonly Buffer[]): 1 | 2 {
  if (fmtpStereo(fmtp)) return 2;
  return firstPackets.some((p) => opusPacketStereo(p) === true) ? 2 : 1;
}

/**
 * ffmpeg encoder arguments. Mono at 64 kb/s uses the `fast` coder: ffmpeg documents it as worse than `twoloop`
 * only below 64 kb/s per stream and better above, at a fraction of the CPU; stereo keeps `twoloop` (32 kb/s per
 * channel is where `fast` loses).
 */
export function aacArgs(channels: 1 | 2): string[] {
  return ['-c:a', 'aac', '-b:a', AAC_BITRATE, '-ac', String(channels), '-aac_coder', channels === 1 ? 'fast' : 'twoloop'];
}
