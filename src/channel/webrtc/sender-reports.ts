/**
 * Sender reports a werift sender sends on our behalf (docs/channel.md, "Sender reports"). werift's RTCRtpSender
 * builds its own SR every 0.5-1.5 s from the wall time it last sent a packet and that packet's timestamp: for an
 * SFU that is the forwarding time, not the publisher's capture clock, and its NTP fraction is wrong besides (werift
 * 0.24.4 `ntpTime()` writes the decimal digits of the milliseconds as the 32-bit fraction, so every report is up
 * to a second early). `SenderReportWriter` switches that loop off and sends the reports it is given instead.
 */
import { RtcpSenderInfo, RtcpSrPacket, type RTCRtpSender } from 'werift';

/** One instant on two clocks: the sender's wall clock (64-bit NTP) and the stream's RTP timestamp. */
export interface ClockMapping {
  /** NTP format: seconds since 1900 in the high 32 bits, fraction in the low 32. */
  readonly ntpTimestamp: bigint;
  readonly rtpTimestamp: number;
}

/** Owns the sender reports of one werift sender; counts what goes through `countSent` for their packet and octet counts. */
export class SenderReportWriter {
  #packets = 0;
  #octets = 0;

  constructor(private readonly sender: RTCRtpSender) {
    // werift starts its report loop from sendRtp (and returns at once while `rtcpRunning`): a no-op keeps it off.
    sender.runRtcp = async () => undefined;
  }

  /** An RTP packet with `payloadBytes` of payload was handed to the sender. */
  countSent(payloadBytes: number): void {
    this.#packets = (this.#packets + 1) >>> 0;
    this.#octets = (this.#octets + payloadBytes) >>> 0;
  }

  /** Sends one SR with this mapping under the sender's SSRC (dropped while DTLS is not up). */
  send(mapping: ClockMapping): void {
    const transport = this.sender.dtlsTransport;
    if (transport?.state !== 'connected') return;
    transport.sendRtcp([senderReport(this.sender.ssrc, mapping, this.#packets, this.#octets)]).catch(() => undefined);
  }
}

/** An RTCP SR of stream `ssrc`: this mapping, and the packets and payload octets sent so far (32-bit counters). */
export function senderReport(ssrc: number, mapping: ClockMapping, packets: number, octets: number): RtcpSrPacket {
  return new RtcpSrPacket({
    ssrc,
    senderInfo: new RtcpSenderInfo({ ntpTimestamp: mapping.ntpTimestamp, rtpTimestamp: mapping.rtpTimestamp >>> 0, packetCount: packets, octetCount: octets }),
  });
}
