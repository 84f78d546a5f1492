import { RtcpSrPacket, type MediaStreamTrack, type RTCRtpTransceiver } from 'werift';
import { ReceiveFeedback } from './receive-feedback.ts';
import type { MediaKind, TrackInfo } from '../membership/index.ts';
import { TrackFanout, type ForwardSource } from './forward.ts';
import { PeerSession, type PeerSessionOptions } from './peer-session.ts';
import { extmapId, type TrackCodec } from './sdp.ts';
import { AUDIO_LEVEL_URI } from '../../rtp-payload/index.ts';
import type { LayerChoice } from './layer-adaptation.ts';
import { SimulcastFanout, SwitchingLayerView } from './simulcast.ts';
import { restoreAudioLevel, routeSimulcastRepairs } from './werift-hooks.ts';

export interface PublishSessionOptions extends PeerSessionOptions {
  /** The codec chosen per m-section kind (the offer was narrowed to it). */
  readonly codecs: ReadonlyMap<MediaKind, TrackCodec>;
  /** Kinds whose publisher negotiated neither PLI nor FIR: their fan-out keeps the current GOP instead of asking. */
  readonly unaskable: ReadonlySet<MediaKind>;
  /** Kinds the publisher sends as several encodings (simulcast): their rids, in the offer's order. */
  readonly simulcast?: ReadonlyMap<MediaKind, readonly string[]>;
}

/** A published track: one stream, or a simulcast publisher's layers. */
export type PublishedTrack = TrackFanout | SimulcastFanout;

/** One WHIP publisher: a receive-only peer whose tracks fan out to subscribers. */
export class PublishSession extends PeerSession {
  readonly tracks = new Map<MediaKind, PublishedTrack>();
  #lastRtpAt: number;
  readonly #feedback: ReceiveFeedback;

  constructor(private readonly opts: PublishSessionOptions) {
    super(opts);
    this.#lastRtpAt = opts.clock.now();
    // A video packet given up after its NACKs leaves the frames after it undecodable: ask for a keyframe.
    this.#feedback = new ReceiveFeedback(opts.clock, opts.traffic, (kind, ssrc) => this.#layerOf(kind, ssrc)?.requestKeyframe());
    if (opts.simulcast?.size) routeSimulcastRepairs(this.pc);
    const seen = new Set<string>();
    const kinds = new Set<string>();
    const attach = (track: MediaStreamTrack) => {
      if (seen.has(track.uuid)) return;
      seen.add(track.uuid);
      // One stream per kind, or one per rid of a simulcast track (its layers); another track of a kind is ignored.
      const fan = this.tracks.get(track.kind as MediaKind);
      const key = fan instanceof SimulcastFanout && track.rid && fan.layers.has(track.rid) ? `${track.kind}/${track.rid}` : track.kind;
      if (kinds.has(key)) return;
      kinds.add(key);
      this.#attach(track);
    };
    this.pc.onTrack.subscribe((track) => {
      attach(track);
      // werift announces a simulcast section once, with its first encoding's track: the others are its receiver's.
      if (!this.opts.simulcast?.has(track.kind as MediaKind)) return;
      for (const t of this.pc.getTransceivers()) if (t.kind === track.kind) for (const layer of t.receiver.tracks) attach(layer);
    });
  }

  /** The tracks with a simulcast track as the subscriber's own view, starting at `first` (`SwitchingLayerView`). */
  switchingSources(first: LayerChoice): ReadonlyMap<MediaKind, ForwardSource> {
    return new Map([...this.tracks].map(([kind, t]) => [kind, t instanceof SimulcastFanout ? new SwitchingLayerView(t, first) : t]));
  }

  /** Negotiates the (already narrowed) offer; returns the answer SDP and the published tracks. */
  async negotiate(offer: string): Promise<{ answer: string; tracks: TrackInfo[] }> {
    for (const [kind, codec] of this.opts.codecs) {
      const fanout = () =>
        new TrackFanout(
          kind,
          codec,
          (ssrc, type) => this.#feedback.sendKeyframeRequest(kind, ssrc, type),
          () => this.opts.clock.now(),
          300,
          (type) => this.opts.traffic.keyframeLimited[type]++,
          !this.opts.unaskable.has(kind),
        );
      const rids = this.opts.simulcast?.get(kind);
      this.tracks.set(kind, rids ? new SimulcastFanout(codec, new Map(rids.map((rid) => [rid, fanout()])), () => this.opts.clock.now()) : fanout());
    }
    const answer = await this.answer(offer);
    // A publisher that sends RFC 6464 audio levels (Chromium does): its packets' levels go on to every subscriber.
    const audio = this.tracks.get('audio');
    if (audio instanceof TrackFanout) audio.audioLevelExtensionId = extmapId(answer, 'audio', AUDIO_LEVEL_URI);
    for (const t of this.pc.getTransceivers()) {
      this.#feedback.attach(t);
      this.#watchRtcp(t);
    }
    const tracks = [...this.tracks.values()].map((t) => ({ kind: t.kind, codec: t.codec.mimeType }));
    return { answer, tracks };
  }

  /** Whether RTP arrived within the last `withinMs`. */
  sending(withinMs: number): boolean {
    return !this.closed && this.opts.clock.now() - this.#lastRtpAt < withinMs;
  }

  #attach(track: MediaStreamTrack): void {
    const kind = track.kind as MediaKind;
    const published = this.tracks.get(kind);
    const layer = published instanceof SimulcastFanout ? published.layers.get(track.rid ?? '') : published;
    track.onReceiveRtp.subscribe((packet, extensions) => {
      this.touch();
      this.#lastRtpAt = this.opts.clock.now();
      const fan = layer;
      if (!fan) return;
      if (kind === 'audio') restoreAudioLevel(packet, extensions, fan.audioLevelExtensionId);
      this.opts.traffic.countRtp('in', kind, packet.serializeSize);
      if (this.#feedback.observe(kind, packet)) fan.push(packet);
    });
  }

  #watchRtcp(t: RTCRtpTransceiver): void {
    t.receiver.onRtcp.subscribe((packet) => {
      this.touch();
      // The publisher's clock mapping, passed on to every subscriber of the track (translated there).
      if (packet instanceof RtcpSrPacket) this.#layerOf(t.kind as MediaKind, packet.ssrc)?.pushSenderReport(packet);
    });
  }

  /** The fan-out that carries stream `ssrc` of a kind: the track itself, or the simulcast layer sending it. */
  #layerOf(kind: MediaKind, ssrc: number): TrackFanout | undefined {
    const t = this.tracks.get(kind);
    return t instanceof SimulcastFanout ? t.layerOf(ssrc) : t;
  }

  protected override closing(): void {
    this.#feedback.close();
  }
}
