import { type MediaStreamTrack, RtpHeader, RtpPacket } from 'werift';

/**
 * Writes VP8 packets into a publisher's track until stopped, each one a whole keyframe start (descriptor S=1, P bit
 * 0) with the marker set: a stream any viewer can start from at any packet. `patterned` fills each payload with its
 * packet number (a repair that mixed packets up shows). Returns the stop function.
 */
export function feedVp8Keyframes(track: MediaStreamTrack, opts: { readonly perSecond: number; readonly bytes: number; readonly patterned?: boolean }): () => void {
  let n = 0;
  const timer = setInterval(() => {
    const payload = Buffer.alloc(opts.bytes, opts.patterned ? n & 0xff : 0);
    Buffer.from([0x10, 0x00]).copy(payload);
    const header = new RtpHeader({ payloadType: 96, sequenceNumber: n & 0xffff, timestamp: (n * (90_000 / opts.perSecond)) >>> 0, marker: true });
    track.writeRtp(new RtpPacket(header, payload));
    n++;
  }, Math.round(1000 / opts.perSecond));
  return () => clearInterval(timer);
}
