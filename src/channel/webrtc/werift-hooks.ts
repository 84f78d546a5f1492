/**
 * Where the SFU takes loss repair and congestion feedback over from werift 0.24.4 (docs/channel.md, "Loss on each
 * hop"). werift's receiver NACKs each gap every 5 ms, ten times, then forgets it (50 ms: less than one round trip
 * through a 50 ms link); its TWCC feedback reports missing packets as received and mistimes each batch by up to
 * 64 ms; its sender answers NACKs from the last 128 packets whatever their age and ignores FIR. These few hooks
 * switch those parts off and hand the events to reeltime's own (webrtc/nack-tracker.ts, twcc.ts,
 * retransmit-cache.ts). Everything else (SRTP, RTX unwrapping on receive, routing) stays werift's. One hook is for
 * reeltime's own client: a second simulcast encoding on a werift sender (`simulcastEncodings`).
 */
import { randomInt } from 'node:crypto';
import type { GenericNack, RTCRtpReceiver, RTCRtpSender, RTCRtpTransceiver, RtcpPacket } from 'werift';
import { RtcpTransportLayerFeedback, GenericNack as GenericNackClass, RTP_EXTENSION_URI, RtpPacket, rtpHeaderExtensionsParser, type RTCPeerConnection } from 'werift';

/** The feedback a peer negotiated for a section's (first non-RTX) codec. */
export interface NegotiatedFeedback {
  readonly nack: boolean;
  readonly pli: boolean;
  readonly fir: boolean;
  readonly twcc: boolean;
  /** RTX payload types of the section (those repairing its codec). */
  readonly rtxPayloadTypes: ReadonlySet<number>;
}

export function negotiatedFeedback(t: RTCRtpTransceiver): NegotiatedFeedback {
  const codecs = t.codecs;
  const main = codecs.find((c) => c.name.toLowerCase() !== 'rtx');
  const fb = main?.rtcpFeedback ?? [];
  const has = (type: string, parameter?: string) => fb.some((f) => f.type === type && (f.parameter ?? undefined) === parameter);
  return {
    nack: has('nack'),
    pli: has('nack', 'pli'),
    fir: has('ccm', 'fir'),
    twcc: has('transport-cc'),
    rtxPayloadTypes: new Set(codecs.filter((c) => c.name.toLowerCase() === 'rtx').map((c) => c.payloadType)),
  };
}

interface ReceiverInternals {
  nack: { addPacket(packet: RtpPacket): void; close(): void };
  receiverTWCC?: unknown;
  handleRTP(packet: RtpPacket, extensions: Record<string, unknown>, track: unknown): void;
}

/**
 * Takes a publisher's receiver over: werift's NACK loop off, its TWCC feedback replaced by `onTransportSeq`
 * (called with each packet's transport-wide sequence number as it arrives, RTX and audio included), and `onRtx`
 * called for each RTX packet before werift unwraps it.
 */
export function takeOverReceiver(
  receiver: RTCRtpReceiver,
  rtxPayloadTypes: ReadonlySet<number>,
  hooks: { readonly onTransportSeq: (tsn: number) => void; readonly onRtx: () => void },
): void {
  const r = receiver as unknown as ReceiverInternals;
  r.nack.close();
  r.nack.addPacket = () => undefined;
  // werift calls `receiverTWCC.handleTWCC(seq)` for every packet once one is set, and sets up its own otherwise.
  r.receiverTWCC = {
    twccRunning: false,
    handleTWCC: (tsn: unknown) => {
      if (typeof tsn === 'number') hooks.onTransportSeq(tsn);
    },
  };
  const handle = r.handleRTP.bind(r);
  r.handleRTP = (packet, extensions, track) => {
    if (rtxPayloadTypes.has(packet.header.payloadType) && packet.payload.length >= 2) hooks.onRtx();
    handle(packet, extensions, track);
  };
}

interface SenderInternals {
  handleRtcpPacket(packet: RtcpPacket): void;
  rtxPayloadType?: number;
  rtxSequenceNumber: number;
  rtpStreamId?: string;
  mid?: string;
  headerExtensions: readonly { readonly id: number; readonly uri: string }[];
  senderBWE: { rtpPacketSent(info: unknown): void; receiveTWCC(feedback: unknown): void };
}

/**
 * Switches a viewer's sender's own bandwidth estimator off: reeltime reads the viewer's transport-cc feedback
 * itself (delay-trend.ts). werift's records every packet sent in an object keyed by its transport-wide sequence
 * number (up to 65,536 keys per sender, its pruning looks at the wrong object) and walks each feedback with BigInt
 * arithmetic: with it on, the node spent about 45 % more CPU forwarding to viewers that send transport-cc
 * (`bench:sfu`, 1 publisher × 50 viewers, session 29).
 */
export function silenceSenderEstimator(sender: RTCRtpSender): void {
  (sender as unknown as SenderInternals).senderBWE = { rtpPacketSent: () => undefined, receiveTWCC: () => undefined };
}

/**
 * werift unwraps a publisher's RED (Chromium's Opus) into packets without header extensions and hands the RED
 * packet's extensions, parsed, beside each: the audio level (RFC 6464) goes back into the packet under `id`, the id
 * the publisher negotiated, so it travels on with it (a redundant block, sent again after a loss, gets the level of
 * the packet that carried it, 20-40 ms later).
 */
export function restoreAudioLevel(packet: RtpPacket, parsed: Record<string, unknown> | undefined, id: number | undefined): void {
  const level = parsed?.[RTP_EXTENSION_URI.audioLevelIndication] as { v: boolean; level: number } | undefined;
  if (id === undefined || !level || packet.header.extensions.some((e) => e.id === id)) return;
  packet.header.extensions.push({ id, payload: Buffer.from([(level.v ? 0x80 : 0) | (level.level & 0x7f)]) });
}

/** The id the sender's viewer negotiated for header extension `uri` (known once negotiated), or undefined. */
export function senderExtensionId(sender: RTCRtpSender, uri: string): number | undefined {
  return ((sender as unknown as SenderInternals).headerExtensions ?? []).find((e) => e.uri === uri)?.id;
}

/**
 * A sender as a simulcast sender of two encodings (werift sends one stream per sender): its own stream becomes
 * encoding `mainRid` (werift writes the rid header extension once this is set), and the function returned sends
 * the packets of encoding `extraRid` on the same transport, with an SSRC of their own, the sender's payload type,
 * `mid` and that rid. The extra encoding gets no sender reports and answers no NACK or PLI.
 */
export function simulcastEncodings(pc: RTCPeerConnection, sender: RTCRtpSender, mainRid: string, extraRid: string): (rtp: Buffer) => void {
  const s = sender as unknown as SenderInternals;
  s.rtpStreamId = mainRid;
  const ssrc = randomInt(1, 0xffffffff);
  // The negotiated extensions are known once connected: their payloads are made once, for every packet.
  let extensions: { id: number; payload: Buffer }[] | undefined;
  return (rtp) => {
    if (pc.connectionState !== 'connected' || !sender.codec) return;
    extensions ??= s.headerExtensions.flatMap((e) => {
      if (e.uri === RTP_EXTENSION_URI.sdesMid && s.mid) return [{ id: e.id, payload: Buffer.from(s.mid) }];
      if (e.uri === RTP_EXTENSION_URI.sdesRTPStreamID) return [{ id: e.id, payload: Buffer.from(extraRid) }];
      return [];
    });
    const p = RtpPacket.deSerialize(rtp);
    p.header.ssrc = ssrc;
    p.header.payloadType = sender.codec.payloadType;
    p.header.extensions = extensions;
    void sender.dtlsTransport.sendRtp(p.payload, p.header).catch(() => undefined);
  };
}

/**
 * Takes a viewer's sender over for NACKs: `answer` gets each Generic NACK instead of werift's own history; every
 * other RTCP message (PLI, receiver reports, TWCC) still goes to werift. `onRtcp` still fires for all of them.
 */
export function takeOverNacks(sender: RTCRtpSender, answer: (nack: GenericNack) => void): void {
  const s = sender as unknown as SenderInternals;
  const handle = s.handleRtcpPacket.bind(s);
  s.handleRtcpPacket = (packet) => {
    if (packet instanceof RtcpTransportLayerFeedback && packet.feedback instanceof GenericNackClass) {
      answer(packet.feedback);
      sender.onGenericNack.execute(packet.feedback);
      sender.onRtcp.execute(packet);
      return;
    }
    handle(packet);
  };
}

/** The sender's RTX stream when the viewer negotiated one: its payload type, SSRC and next sequence number. */
export function senderRtx(sender: RTCRtpSender): { readonly payloadType: number; readonly ssrc: number; nextSeq(): number } | undefined {
  const s = sender as unknown as SenderInternals;
  if (s.rtxPayloadType === undefined) return undefined;
  return {
    payloadType: s.rtxPayloadType,
    ssrc: sender.rtxSsrc,
    nextSeq: () => {
      const n = s.rtxSequenceNumber;
      s.rtxSequenceNumber = (n + 1) & 0xffff;
      return n;
    },
  };
}

interface RouterInternals {
  readonly ssrcTable: Record<number, unknown>;
  readonly ridTable: Record<string, SimulcastReceiverInternals | undefined>;
  readonly extIdUriMap: Record<number, string>;
  routeRtp(packet: RtpPacket): void;
  registerRtpReceiver(receiver: SimulcastReceiverInternals, ssrc: number): void;
}

interface SimulcastReceiverInternals {
  readonly trackByRID: Record<string, unknown>;
  readonly trackBySSRC: Record<number, unknown>;
  readonly ssrcByRtx: Record<number, number>;
}

/**
 * werift routes a simulcast publisher's packets by their `rtp-stream-id`, but its RTX streams (retransmissions and
 * the bandwidth probes Chromium pads with) carry only `repaired-rtp-stream-id` and no SSRC of theirs is in the SDP:
 * werift dropped them unread, so nothing was repaired and every probe looked lost to the sender's congestion
 * control (Chromium stayed under 200 kbit/s, too little to send its higher layer). Now an RTX stream's first packet
 * registers its SSRC with the receiver of the encoding it repairs, mapped to that encoding's SSRC, and werift's own
 * RTX path takes it from there.
 */
export function routeSimulcastRepairs(pc: RTCPeerConnection): void {
  const router = (pc as unknown as { router: RouterInternals }).router;
  const route = router.routeRtp;
  router.routeRtp = (packet) => {
    if (router.ssrcTable[packet.header.ssrc] === undefined) {
      const repaired = rtpHeaderExtensionsParser(packet.header.extensions, router.extIdUriMap)[RTP_EXTENSION_URI.repairedRtpStreamId];
      const receiver = typeof repaired === 'string' ? router.ridTable[repaired] : undefined;
      if (receiver) {
        const track = receiver.trackByRID[repaired as string];
        const media = Object.entries(receiver.trackBySSRC).find(([, t]) => t === track)?.[0];
        if (media !== undefined) {
          receiver.ssrcByRtx[packet.header.ssrc] = Number(media);
          router.registerRtpReceiver(receiver, packet.header.ssrc);
        }
      }
    }
    route(packet);
  };
}
