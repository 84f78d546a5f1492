import { performance } from 'node:perf_hooks';
import { RTP_EXTENSION_URI, RtcpRrPacket, RtcpTransportLayerFeedback, TransportWideCC, type RTCRtpTransceiver, type RtpPacket } from 'werift';
import type { MediaKind } from '../membership/index.ts';
import type { ForwardSource } from './forward.ts';
import type { SubscriberGate } from './gate.ts';
import { attachGated, gatedRtpPacket, KeyframeAsker } from './gated-forward.ts';
import { PeerSession, type PeerSessionOptions } from './peer-session.ts';
import { SenderReportWriter } from './sender-reports.ts';
import { parseTwccFeedback } from './twcc.ts';
import { DelayTrend, type DelaySignal } from './delay-trend.ts';
import { adapt, adaptedLayer, adaptToDelay, startAdaptation, type LayerChoice } from './layer-adaptation.ts';
import type { VideoSize } from '../../rtp-payload/index.ts';
import { SwitchingLayerView } from './simulcast.ts';
import { ViewerRepair } from './viewer-repair.ts';
import { senderExtensionId, silenceSenderEstimator } from './werift-hooks.ts';
import { AUDIO_LEVEL_URI } from '../../rtp-payload/index.ts';

/** How long the delay trend must say overuse before a viewer moves down (GCC's own reaction, a rate cut, is at once). */
const SUSTAINED_OVERUSE_MS = 500;

export interface SubscribeSessionOptions extends PeerSessionOptions {
  /** The publisher's tracks by kind. */
  readonly sources: ReadonlyMap<MediaKind, ForwardSource>;
  /** A viewer that pinned no layer: a simulcast track's layer follows the loss it reports and its delay trend. */
  readonly adaptsToLoss: boolean;
  /** Whether the publisher is still sending; a subscriber of a silent publisher sends no RTCP either. */
  readonly publisherSending: (withinMs: number) => boolean;
}

/**
 * One WHEP session: a send-only peer fed from a publisher's tracks without transcoding. Each track passes a
 * `SubscriberGate`: video is held back until a keyframe the decoder can start at (H.264 with its parameter sets),
 * with continuous sequence numbers. The publisher is asked for a keyframe when the peer connects, every second
 * while the video gate waits, and whenever the subscriber sends a PLI or FIR. NACKs are answered from a
 * per-track retransmission cache, as RTX where negotiated (`ViewerRepair`). The publisher's sender reports are passed on in the subscriber's SSRC and timestamps
 * (werift's own, dated by forwarding time, are switched off): docs/channel.md, "Sender reports".
 */
export class SubscribeSession extends PeerSession {
  readonly #detach: (() => void)[] = [];
  readonly #startFromGop: (() => void)[] = [];
  #videoGate: SubscriberGate | undefined;
  readonly #keyframes: KeyframeAsker;
  /**
   * The viewer's transport-cc feedback on every packet this peer sends (one transport: audio and video); only for a
   * viewer whose layer it can move (no pinned layer, a simulcast publisher), the others' feedback is not read.
   */
  readonly #delay: DelayTrend | undefined;
  readonly #delayListeners: ((signal: DelaySignal) => void)[] = [];

  constructor(private readonly opts: SubscribeSessionOptions) {
    super(opts);
    const adapts = opts.adaptsToLoss && [...opts.sources.values()].some((s) => s instanceof SwitchingLayerView);
    this.#delay = adapts ? new DelayTrend() : undefined;
    this.#keyframes = new KeyframeAsker(opts.clock, opts.sources.get('video'), () => this.#videoGate?.waiting ?? false);
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
    if (this.closed) return;
    for (const start of this.#startFromGop) start();
    this.#keyframes.ask(true);
  }

  protected override closing(): void {
    this.#keyframes.stop();
    for (const d of this.#detach) d();
  }

  /**
   * The size the viewer draws the publisher's video at (a mix recorder's WHEP link): a simulcast publisher's smallest
   * layer that covers it, when the viewer pinned none (`SwitchingLayerView.fit`). Whether its layer moved, and to what.
   */
  fitVideo(size: VideoSize): LayerChoice | undefined {
    const video = this.opts.sources.get('video');
    return video instanceof SwitchingLayerView && video.fit(size) ? video.choice : undefined;
  }

  #sentTransportSeq(delay: DelayTrend, sender: RTCRtpTransceiver['sender'], p: RtpPacket): void {
    const id = senderExtensionId(sender, RTP_EXTENSION_URI.transportWideCC);
    if (id === undefined) return;
    const ext = p.header.extensions.find((e) => e.id === id);
    if (ext && ext.payload.length >= 2) delay.sent(ext.payload.readUInt16BE(0), performance.now());
  }

  #wire(t: RTCRtpTransceiver): void {
    const kind = t.kind as MediaKind;
    const sender = t.sender;
    silenceSenderEstimator(sender);
    const traffic = this.peer.traffic;
    sender.onRtcp.subscribe(() => this.touch());
    const reports = new SenderReportWriter(sender);
    const source = this.opts.sources.get(kind);
    if (!source) return;
    const repair = new ViewerRepair(sender, this.opts.clock, traffic, () => {
      traffic.fir.in++;
      source.requestKeyframe('fir');
    });
    this.#detach.push(() => repair.close());
    // The viewer's transport-cc feedback may come on either sender (it names the SSRC it got last): one trend.
    const delay = this.#delay;
    if (delay) {
      sender.onRtcp.subscribe((p) => {
        if (!(p instanceof RtcpTransportLayerFeedback) || !(p.feedback instanceof TransportWideCC)) return;
        const fb = parseTwccFeedback(p.serialize());
        if (!fb) return;
        traffic.twccIn++;
        const signal = delay.feedback(fb.results);
        // A layer switch is a bigger step than a sender's 15 % cut: only a queue that kept growing for a while moves
        // the viewer, not one stall of its process.
        if (signal !== 'overuse' || delay.overuseForMs >= SUSTAINED_OVERUSE_MS) for (const l of this.#delayListeners) l(signal);
      });
    }
    if (source instanceof SwitchingLayerView && this.opts.adaptsToLoss) {
      // The viewer's receiver reports of its video stream (one SSRC whatever layer it gets) and the delay trend of
      // its transport-cc feedback move its layer.
      let adaptation = startAdaptation();
      const moved = () => {
        const to = adaptedLayer(adaptation);
        if (source.choose(to)) traffic.layerSwitches[to === 'low' ? 'down' : 'up']++;
      };
      sender.onRtcp.subscribe((p) => {
        if (!(p instanceof RtcpRrPacket)) return;
        for (const r of p.reports) {
          if (r.ssrc !== sender.ssrc) continue;
          adaptation = adapt(adaptation, r.fractionLost / 256, this.opts.clock.now());
          moved();
        }
      });
      this.#delayListeners.push((signal) => {
        const before = adaptation;
        adaptation = adaptToDelay(adaptation, signal, this.opts.clock.now());
        if (adaptation !== before) {
          traffic.delayMoves++;
          moved();
        }
      });
    }
    if (kind === 'video') {
      sender.onPictureLossIndication.subscribe(() => {
        traffic.pli.in++;
        source.requestKeyframe();
      });
    }
    const { gate, detach, startFromGop } = attachGated(
      source,
      this.opts.clock,
      // Fresh headers per subscriber: werift's sender rewrites SSRC, payload type and extensions in place.
      (gated) => {
        const p = gatedRtpPacket(gated, gated.audioLevel === undefined ? undefined : senderExtensionId(sender, AUDIO_LEVEL_URI));
        traffic.countRtp('out', kind, p.serializeSize);
        reports.countSent(p.payload.length);
        void sender.sendRtp(p).catch(() => undefined);
        // sendRtp rewrote the header synchronously: the packet is kept as the viewer got it, with its transport-wide
        // sequence number when the viewer negotiated transport-cc.
        repair.sent(p);
        if (delay) this.#sentTransportSeq(delay, sender, p);
      },
      {
        accept: () => sender.dtlsTransport.state === 'connected',
        // The publisher's stream changed (new SSRC): this viewer waits for its keyframe, so ask for one.
        onWaitAgain: () => {
          if (kind === 'video' && !this.#keyframes.retrying) this.#keyframes.ask(true);
        },
      },
    );
    if (kind === 'video') this.#videoGate = gate;
    this.#detach.push(detach);
    this.#startFromGop.push(startFromGop);
    this.#detach.push(
      source.addSenderReportSink((sr) => {
        // Same instant, this viewer's timestamp: NTP time ↔ the timestamp its packets of that instant carry.
        const rtpTimestamp = gate.outgoingTimestamp(sr.ssrc, sr.senderInfo.rtpTimestamp);
        if (rtpTimestamp !== undefined) reports.send({ ntpTimestamp: sr.senderInfo.ntpTimestamp, rtpTimestamp });
      }),
    );
  }
}
