/**
 * A one-track SDP that lets ffmpeg receive RTP on a loopback UDP port (`-protocol_whitelist file,udp,rtp`).
 * Pure: the caller picks the port and the codec parameters it negotiated.
 */

export type RtpCodecName = 'VP8' | 'H264' | 'opus';

export interface RtpTrackDescription {
  readonly codec: RtpCodecName;
  readonly payloadType: number;
  /** 90000 for video, 48000 for Opus. */
  readonly clockRate: number;
  readonly channels?: number;
  /** `a=fmtp` parameters, e.g. H.264 `packetization-mode=1;profile-level-id=42e01f`. */
  readonly fmtp?: string | undefined;
  /** Audio: the id under which packets carry the publisher's RFC 6464 level, when they may (read per packet). */
  readonly audioLevelExtensionId?: number | undefined;
}

export function isVideoCodec(codec: RtpCodecName): boolean {
  return codec !== 'opus';
}

export function buildSdp(track: RtpTrackDescription, port: number, host = '127.0.0.1'): string {
  if (!Number.isInteger(port) || port <= 0 || port > 65534 || port % 2 !== 0) throw new RangeError(`RTP port must be even, got ${port}`);
  if (!Number.isInteger(track.payloadType) || track.payloadType < 0 || track.payloadType > 127) {
    throw new RangeError(`invalid payload type ${track.payloadType}`);
  }
  const media = isVideoCodec(track.codec) ? 'video' : 'audio';
  const channels = media === 'audio' ? `/${track.channels ?? 2}` : '';
  const lines = [
    'v=0',
    `o=- 0 0 IN IP4 ${host}`,
    's=reeltime',
    `c=IN IP4 ${host}`,
    't=0 0',
    `m=${media} ${port} RTP/AVP ${track.payloadType}`,
    `a=rtpmap:${track.payloadType} ${track.codec}/${track.clockRate}${channels}`,
  ];
  if (track.fmtp) lines.push(`a=fmtp:${track.payloadType} ${track.fmtp}`);
  lines.push('a=recvonly');
  return lines.join('\r\n') + '\r\n';
}
