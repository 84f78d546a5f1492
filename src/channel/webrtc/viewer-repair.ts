import { wrapRtx, type GenericNack, type RTCRtpSender, type RtpPacket } from 'werift';
import type { Clock } from '../../clock/index.ts';
import { onFir } from './fir.ts';
import { RetransmitCache } from './retransmit-cache.ts';
import type { ChannelTraffic } from './traffic.ts';
import { senderRtx, takeOverNacks } from './werift-hooks.ts';

/**
 * Loss repair towards one viewer's track (docs/channel.md, "Loss on each hop"): every packet sent is kept in a
 * `RetransmitCache` (1 s, 1 MiB) under the number the viewer saw, and the viewer's NACKs are answered from it, as
 * RTX (RFC 4588) when the viewer negotiated it, else as the packet again. `onFir` is called for each FIR the viewer
 * sends (werift only reports PLIs).
 */
export class ViewerRepair {
  readonly #cache = new RetransmitCache<RtpPacket>();

  constructor(
    private readonly sender: RTCRtpSender,
    private readonly clock: Clock,
    private readonly traffic: ChannelTraffic,
    onViewerFir: () => void,
  ) {
    takeOverNacks(sender, (nack) => this.#answer(nack));
    onFir(sender, onViewerFir);
  }

  /** `packet` was just handed to the sender (which rewrote its SSRC, payload type and sequence number). */
  sent(packet: RtpPacket): void {
    this.#cache.put(packet.header.sequenceNumber, packet, packet.serializeSize, this.clock.now());
  }

  #answer(nack: GenericNack): void {
    this.traffic.nack.in++;
    const transport = this.sender.dtlsTransport;
    if (transport?.state !== 'connected') return;
    const rtx = senderRtx(this.sender);
    const now = this.clock.now();
    let resent = 0;
    for (const seq of nack.lost) {
      const found = this.#cache.take(seq, now);
      if (found.kind !== 'resend') continue;
      const packet = rtx ? wrapRtx(found.item, rtx.payloadType, rtx.nextSeq(), rtx.ssrc) : found.item;
      if (rtx) this.traffic.rtx.out++;
      resent++;
      transport.sendRtp(packet.payload, packet.header).catch(() => undefined);
    }
    this.traffic.retransmissions += resent;
    if (resent > 0) this.traffic.nackAnswered++;
  }

  close(): void {
    this.#cache.clear();
  }
}
