import { RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';
import type { TimerHandle } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import type { ForwardSource } from './forward.ts';
import { streamStartFor, SubscriberGate } from './gate.ts';
import { PeerSession, type PeerSessionOptions } from './peer-session.ts';
import { SenderReportWriter } from './sender-reports.ts';

export interface SubscribeSessionOptions extends PeerSessionOptions {
  /** The publisher's tracks by kind. */
  readonly sources: ReadonlyMap<MediaKind, ForwardSource>;
  /** Whether the publisher is still sending; a subscriber of a silent publisher sends no RTCP either. */
  readonly publisherSending: (withinMs: number) => boolean;
}

/** How often a subscriber still waiting for its first keyframe asks again. */
const KEYFRAME_RETRY_MS = 1000;

/**
 * One WHEP session: a send-only peer fed from a publisher's tracks without transcoding. Each track passes a
 * `SubscriberGate`: video is held back until a keyframe the decoder can start at (H.264 with its parameter sets),
 * with continuous sequence numbers. The publisher is asked for a keyframe when the peer connects, every second
 * while the video gate waits, and whenever the subscriber sends a PLI. NACKs are answered from the werift
 * sender's packet history. The publisher's sender reports are passed on in the subscriber's SSRC and timestamps
 * (werift's own, dated by forwarding time, are switched off): docs/channel.md, "Sender reports".
 */
export class SubscribeSession extends PeerSession {
  readonly #detach: (() => void)[] = [];
  #retry: TimerHandle | undefined;
  #videoGate: SubscriberGate | undefined;

  constructor(private readonly opts: SubscribeSessionOptions) {
    super(opts);
  }

  async negotiate(offer: string, kinds: readonly MediaKind[]): Promise<string> {
    // Send-only transceivers made before the offer is applied take its m-sections of the same kind.
    const transceivers = kinds.map((k) => this.pc.addTransceiver(k, { direction: 'sendonly' }));
    const answer = await this.answer(offer);
    for (const t of transceivers) this.#wire(t);
    return answer;
  }

  protected override idle(): boolean | void {
    // Receivers report only on media they get: leave a silent publisher's subscribers to its own timeout.
    if (this.opts.publisherSending(this.opts.idleTimeoutMs) === false && !this.closed) return false;
    return super.idle();
  }

  protected override connected(): void {
    this.#askKeyframe(true);
  }

  protected override closing(): void {
    if (this.#retry) this.opts.clock.clearTimeout(this.#retry);
    for (const d of this.#detach) d();
  }

  /** On connect always (the PLI a joining viewer owes its publisher), then every second while the video gate waits. */
  #askKeyframe(first = false): void {
    this.#retry = undefined;
    const waiting = this.#videoGate?.waiting ?? false;
    if (this.closed || (!first && !waiting)) return;
    this.opts.sources.get('video')?.requestKeyframe();
    if (!waiting) return;
    this.#retry = this.opts.clock.setTimeout(() => this.#askKeyframe(), KEYFRAME_RETRY_MS);
  }

  #wire(t: RTCRtpTransceiver): void {
    const kind = t.kind as MediaKind;
    const sender = t.sender;
    sender.onRtcp.subscribe(() => this.touch());
    const reports = new SenderReportWriter(sender);
    const source = this.opts.sources.get(kind);
    if (!source) return;
    if (kind === 'video') {
      sender.onPictureLossIndication.subscribe(() => source.requestKeyframe());
    }
    const codec = source.codec.mimeType.split('/')[1]!;
    const gate = new SubscriberGate(streamStartFor(codec, () => source.parameterSets()), source.codec.clockRate);
    if (kind === 'video') this.#videoGate = gate;
    const send = (packet: RtpPacket) => {
      reports.countSent(packet.payload.length);
      sender.sendRtp(packet).catch(() => undefined);
    };
    this.#detach.push(
      source.addSenderReportSink((sr) => {
        // Same instant, this viewer's timestamp: NTP time ↔ the timestamp its packets of that instant carry.
        const rtpTimestamp = gate.outgoingTimestamp(sr.ssrc, sr.senderInfo.rtpTimestamp);
        if (rtpTimestamp !== undefined) reports.send({ ntpTimestamp: sr.senderInfo.ntpTimestamp, rtpTimestamp });
      }),
    );
    this.#detach.push(
      source.addSink((packet) => {
        if (sender.dtlsTransport.state !== 'connected') return;
        const h = packet.header;
        const wasOpen = !gate.waiting;
        const r = gate.admit({ ssrc: h.ssrc, seq: h.sequenceNumber, timestamp: h.timestamp, payload: packet.payload }, this.opts.clock.now());
        // The publisher's stream changed (new SSRC): this viewer waits for its keyframe, so ask for one.
        if (kind === 'video' && wasOpen && gate.waiting && !this.#retry) this.#askKeyframe(true);
        // Fresh headers per subscriber: werift's sender rewrites SSRC, payload type and extensions in place.
        for (const x of r.inject) {
          const header = new RtpHeader({ payloadType: h.payloadType, sequenceNumber: x.seq, timestamp: x.timestamp, ssrc: h.ssrc, csrc: [], extensions: [] });
          send(new RtpPacket(header, x.payload));
        }
        if (!r.forward) return;
        const header = new RtpHeader({
          marker: h.marker,
          payloadType: h.payloadType,
          sequenceNumber: r.forward.seq,
          timestamp: r.forward.timestamp,
          ssrc: h.ssrc,
          padding: h.padding,
          paddingSize: h.paddingSize,
          csrc: [],
          extensions: [],
        });
        send(new RtpPacket(header, packet.payload));
      }),
    );
  }
}
