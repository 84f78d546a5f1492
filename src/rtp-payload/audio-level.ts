/**
 * The client-to-mixer audio level header extension (RFC 6464): one byte per packet, a voice-activity flag and the
 * level of the packet's audio in −dBov (0 loudest … 127 silent), which a WebRTC sender such as Chromium computes
 * from the audio it encodes. Read in RTP bytes under RFC 8285's one-byte or two-byte header form. Pure.
 */
export const AUDIO_LEVEL_URI = 'urn:ietf:params:rtp-hdrext:ssrc-audio-level';

/** The extension's byte in a packet: its level (0 … 127, −dBov) and voice flag; undefined when it is absent. */
export interface AudioLevel {
  readonly level: number;
  readonly voice: boolean;
}

export function audioLevelOfByte(byte: number): AudioLevel {
  return { level: byte & 0x7f, voice: (byte & 0x80) !== 0 };
}

/** The byte of extension `id` in RTP bytes, or undefined (not RTP, no extension block, not that id, a malformed block). */
export function readAudioLevel(packet: Uint8Array, id: number): AudioLevel | undefined {
  if (packet.length < 12 || packet[0]! >> 6 !== 2 || !(packet[0]! & 0x10)) return undefined;
  const start = 12 + 4 * (packet[0]! & 0x0f);
  if (packet.length < start + 4) return undefined;
  const profile = (packet[start]! << 8) | packet[start + 1]!;
  const end = Math.min(packet.length, start + 4 + 4 * ((packet[start + 2]! << 8) | packet[start + 3]!));
  const twoByte = (profile & 0xfff0) === 0x1000;
  if (profile !== 0xbede && !twoByte) return undefined;
  for (let at = start + 4; at < end; ) {
    const head = packet[at]!;
    if (head === 0) {
      at++; // padding
      continue;
    }
    const elementId = twoByte ? head : head >> 4;
    if (!twoByte && elementId === 15) return undefined; // the one-byte form's stop mark
    const length = twoByte ? packet[at + 1]! : (head & 0x0f) + 1;
    const data = at + (twoByte ? 2 : 1);
    if (data + length > end) return undefined;
    if (elementId === id && length >= 1) return audioLevelOfByte(packet[data]!);
    at = data + length;
  }
  return undefined;
}

/**
 * An 8-byte extension block in the one-byte form holding only the audio level under `id` (1 … 14): to follow a
 * 12-byte header whose X bit is set.
 */
export function audioLevelBlock(id: number, byte: number): Buffer {
  return Buffer.from([0xbe, 0xde, 0x00, 0x01, id << 4, byte & 0xff, 0, 0]);
}
