import { RtcpSrPacket, type MediaStreamTrack, type RTCRtpTransceiver } from 'werift';
import { ReceiveFeedback } from './receive-feedback.ts';
import type { MediaKind, TrackInfo } from '../membership/index.ts';
import { TrackFanout } from './forward.ts';
import { PeerSession, type PeerSessionOptions } from './peer-session.ts';
import type { TrackCodec } from './sdp.ts';

export interface PublishSessionOptions extends PeerSessionOptions {
  /** The codec chosen per m-section kind (the offer was narrowed to it). */
  readonly codecs: ReadonlyMap<MediaKind, TrackCodec>;
  /** Kinds whose publisher negotiated neither PLI nor FIR: their fan-out keeps the current GOP instead of asking. */
  readonly unaskable: ReadonlySet<MediaKind>;
}

/** One WHIP publisher: a receive-only peer whose tracks fan out to subscribers. */
export class PublishSession extends PeerSession {
  readonly tracks = new Map<MediaKind, TrackFanout>();
  #lastRtpAt: number;
  readonly #feedback: ReceiveFeedback;

  constructor(private readonly opts: PublishSessionOptions) {
    super(opts);
    this.#lastRtpAt = opts.clock.now();
    // A video packet given up after its NACKs leaves the frames after it undecodable: ask for a keyframe.
    this.#feedback = new ReceiveFeedback(opts.clock, opts.traffic, (kind) => this.tracks.get(kind)?.requestKeyframe());
    const seen = new Set<string>();
    const kinds = new Set<string>();
    this.pc.onTrack.subscribe((track) => {
      if (seen.has(track.uuid)) return;
      seen.add(track.uuid);
      // One stream per kind: a simulcast offer gives one track per rid (in a=rid order); the first is forwarded,
      // since two encodings in one fan-out would be one stream switching SSRC at every packet.
      if (kinds.has(track.kind)) return;
      kinds.add(track.kind);
      this.#attach(track);
    });
  }

  /** Negotiates the (already narrowed) offer; returns the answer SDP and the published tracks. */
  async negotiate(offer: string): Promise<{ answer: string; tracks: TrackInfo[] }> {
    for (const [kind, codec] of this.opts.codecs) {
      this.tracks.set(
        kind,
        new TrackFanout(
          kind,
          codec,
          (ssrc, type) => this.#feedback.sendKeyframeRequest(kind, ssrc, type),
          () => this.opts.clock.now(),
          300,
          (type) => this.opts.traffic.keyframeLimited[type]++,
          !this.opts.unaskable.has(kind),
        ),
      );
    }
    const answer = await this.answer(offer);
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
    track.onReceiveRtp.subscribe((packet) => {
      this.touch();
      this.#lastRtpAt = this.opts.clock.now();
      const fan = this.tracks.get(kind);
      if (!fan) return;
      this.opts.traffic.countRtp('in', kind, packet.serializeSize);
      if (this.#feedback.observe(kind, packet)) fan.push(packet);
    });
  }

  #watchRtcp(t: RTCRtpTransceiver): void {
    t.receiver.onRtcp.subscribe((packet) => {
      this.touch();
      // The publisher's clock mapping, passed on to every subscriber of the track (translated there).
      if (packet instanceof RtcpSrPacket) this.tracks.get(t.kind as MediaKind)?.pushSenderReport(packet);
    });
  }

  protected override closing(): void {
    this.#feedback.close();
  }
}
