import { RtcpSrPacket, type MediaStreamTrack, type RTCRtpTransceiver } from 'werift';
import type { MediaKind, TrackInfo } from '../membership/index.ts';
import { TrackFanout } from './forward.ts';
import { PeerSession, type PeerSessionOptions } from './peer-session.ts';
import type { TrackCodec } from './sdp.ts';

export interface PublishSessionOptions extends PeerSessionOptions {
  /** The codec chosen per m-section kind (the offer was narrowed to it). */
  readonly codecs: ReadonlyMap<MediaKind, TrackCodec>;
}

/** One WHIP publisher: a receive-only peer whose tracks fan out to subscribers. */
export class PublishSession extends PeerSession {
  readonly tracks = new Map<MediaKind, TrackFanout>();
  #lastRtpAt: number;

  constructor(private readonly opts: PublishSessionOptions) {
    super(opts);
    this.#lastRtpAt = opts.clock.now();
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
          (ssrc) => {
            this.opts.traffic.pli.out++;
            this.#sendPli(kind, ssrc);
          },
          () => this.opts.clock.now(),
        ),
      );
    }
    const answer = await this.answer(offer);
    for (const t of this.pc.getTransceivers()) this.#watchRtcp(t);
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
      fan.push(packet);
    });
  }

  #watchRtcp(t: RTCRtpTransceiver): void {
    t.receiver.onRtcp.subscribe((packet) => {
      this.touch();
      // The publisher's clock mapping, passed on to every subscriber of the track (translated there).
      if (packet instanceof RtcpSrPacket) this.tracks.get(t.kind as MediaKind)?.pushSenderReport(packet);
    });
    // werift's receiver sends a NACK for each gap it sees in the publisher's sequence numbers.
    t.receiver.onPacketLost.subscribe(() => this.opts.traffic.nack.out++);
  }

  #sendPli(kind: MediaKind, ssrc: number): void {
    const t = this.pc.getTransceivers().find((x) => x.kind === kind);
    t?.receiver.sendRtcpPLI(ssrc).catch(() => undefined);
  }
}
