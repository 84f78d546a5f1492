import { RTCPeerConnection, type MediaStreamTrack, type RTCRtpTransceiver } from 'werift';
import { TrackFanout } from './forward.ts';
import { Liveness } from './liveness.ts';
import type { LeaveReason, MediaKind, TrackInfo } from '../membership/index.ts';
import { answerOffer } from './negotiate.ts';
import type { PeerSessionOptions } from './peer-session.ts';
import type { TrackCodec } from './sdp.ts';

export interface PublishSessionOptions extends PeerSessionOptions {
  /** The codec chosen per m-section kind (the offer was narrowed to it). */
  readonly codecs: ReadonlyMap<MediaKind, TrackCodec>;
}

/** One WHIP publisher: a receive-only peer whose tracks fan out to subscribers. */
export class PublishSession {
  readonly pc: RTCPeerConnection;
  readonly tracks = new Map<MediaKind, TrackFanout>();
  readonly #liveness: Liveness;
  #closed = false;
  #lastRtpAt: number;
  /** Forwarded packets per kind (benchmark and tests). */
  readonly received = { audio: 0, video: 0 };

  constructor(private readonly opts: PublishSessionOptions) {
    this.pc = new RTCPeerConnection(opts.peerConfig);
    this.#lastRtpAt = opts.clock.now();
    this.#liveness = new Liveness(opts.clock, opts.idleTimeoutMs, () => this.#end('timeout'));
    const seen = new Set<string>();
    this.pc.onTrack.subscribe((track) => {
      if (seen.has(track.uuid)) return;
      seen.add(track.uuid);
      this.#attach(track);
    });
    this.pc.connectionStateChange.subscribe((s) => {
      // Connecting is the peer's first sign of life: the idle window starts again from here.
      if (s === 'connected') this.#liveness.touch();
      if (s === 'failed' || s === 'closed') this.#end('connection_failed');
    });
  }

  /** Negotiates the (already narrowed) offer; returns the answer SDP and the published tracks. */
  async negotiate(offer: string): Promise<{ answer: string; tracks: TrackInfo[] }> {
    for (const [kind, codec] of this.opts.codecs) {
      this.tracks.set(
        kind,
        new TrackFanout(kind, codec, (ssrc) => this.#sendPli(kind, ssrc), () => this.opts.clock.now()),
      );
    }
    const answer = await answerOffer(this.pc, offer, this.opts.iceAddresses);
    for (const t of this.pc.getTransceivers()) this.#watchRtcp(t);
    const tracks = [...this.tracks.values()].map((t) => ({ kind: t.kind, codec: t.codec.mimeType }));
    return { answer, tracks };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#liveness.stop();
    await this.pc.close().catch(() => undefined);
  }

  /** Whether RTP arrived within the last `withinMs`. */
  sending(withinMs: number): boolean {
    return !this.#closed && this.opts.clock.now() - this.#lastRtpAt < withinMs;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #end(reason: LeaveReason): void {
    if (this.#closed) return;
    void this.close();
    this.opts.onEnded(reason);
  }

  #attach(track: MediaStreamTrack): void {
    const kind = track.kind as MediaKind;
    track.onReceiveRtp.subscribe((packet) => {
      this.#liveness.touch();
      this.#lastRtpAt = this.opts.clock.now();
      const fan = this.tracks.get(kind);
      if (!fan) return;
      this.received[kind]++;
      fan.push(packet);
    });
  }

  #watchRtcp(t: RTCRtpTransceiver): void {
    t.receiver.onRtcp.subscribe(() => this.#liveness.touch());
  }

  #sendPli(kind: MediaKind, ssrc: number): void {
    const t = this.pc.getTransceivers().find((x) => x.kind === kind);
    t?.receiver.sendRtcpPLI(ssrc).catch(() => undefined);
  }
}
