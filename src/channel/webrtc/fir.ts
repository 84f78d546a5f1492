import { RtcpPayloadSpecificFeedback, type RTCRtpSender, type RtcpPacket } from 'werift';

/** RFC 5104 FIR: the payload-specific feedback message type 4. */
const FIR_FMT = 4;

/**
 * A FIR (RFC 5104: PSFB, PT 206, FMT 4) asking `mediaSsrc` for a keyframe: the media source field 0, one FCI entry
 * with the target SSRC and the request's sequence number (the same number again is a repeat of one request).
 * werift has the class but does not export it; `sendRtcp` only calls `serialize()`.
 */
export function firPacket(senderSsrc: number, mediaSsrc: number, seq: number): RtcpPacket {
  const b = Buffer.alloc(20);
  b[0] = 0x80 | FIR_FMT;
  b[1] = 206;
  b.writeUInt16BE(4, 2);
  b.writeUInt32BE(senderSsrc >>> 0, 4);
  b.writeUInt32BE(0, 8);
  b.writeUInt32BE(mediaSsrc >>> 0, 12);
  b[16] = seq & 0xff;
  return { serialize: () => b } as unknown as RtcpPacket;
}

/**
 * Calls `cb` for each FIR addressed to `sender`'s SSRC. werift's router delivers a FIR (media source SSRC 0 by
 * RFC 5104, the target in its entries) to no sender, so it is read off the sender's transport.
 */
export function onFir(sender: RTCRtpSender, cb: () => void): void {
  sender.dtlsTransport.onRtcp.subscribe((p) => {
    if (!(p instanceof RtcpPayloadSpecificFeedback) || p.feedback.count !== FIR_FMT) return;
    const entries = (p.feedback as unknown as { fir?: readonly { ssrc: number }[] }).fir ?? [];
    if (entries.some((e) => e.ssrc === sender.ssrc)) cb();
  });
}
