import { RtpPacket } from 'werift';
import type { Clock } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import { TrackFanout, type ForwardSource } from './forward.ts';
import type { TrackCodec } from './sdp.ts';
import { senderReport, type ClockMapping } from './sender-reports.ts';
import type { ChannelTraffic } from './traffic.ts';

/**
 * The codecs of an in-process publish: what a WHIP publisher of reeltime's own (werift, `whipPublish`) ends up
 * publishing, so subscribers negotiate with it as they would with one.
 */
export const LOCAL_PUBLISH_CODECS: Readonly<Record<MediaKind, TrackCodec>> = {
  audio: { mimeType: 'audio/opus', clockRate: 48_000, channels: 2, fmtp: '' },
  video: { mimeType: 'video/h264', clockRate: 90_000, channels: undefined, fmtp: 'profile-level-id=42e01f;packetization-mode=1;level-asymmetry-allowed=1' },
};

export interface LocalPublishOptions {
  readonly kinds: readonly MediaKind[];
  readonly clock: Clock;
  readonly traffic: ChannelTraffic;
}

/**
 * A publisher in the channel's own process (an ingest beside the SFU): its RTP goes straight into the tracks'
 * fan-outs, with no peer, no SRTP and no loopback UDP between the two (docs/ingest.md, "In-process publish"). Its
 * source cannot be asked for keyframes (an encoder, a camera): its video keeps the current GOP for subscribers to
 * start from, as a WHIP ingest's does. The SFU holds it where it holds a WHIP publisher's session.
 */
export class LocalPublish {
  readonly tracks = new Map<MediaKind, TrackFanout>();
  #closed = false;
  #lastRtpAt: number;
  /** Per kind: the latest SSRC and the packet and octet counts of its sender reports. */
  readonly #sent = new Map<MediaKind, { ssrc: number; packets: number; octets: number }>();

  constructor(private readonly opts: LocalPublishOptions) {
    this.#lastRtpAt = opts.clock.now();
    for (const kind of opts.kinds) {
      this.tracks.set(kind, new TrackFanout(kind, LOCAL_PUBLISH_CODECS[kind], () => undefined, () => opts.clock.now(), 300, () => undefined, false));
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** One RTP packet of `kind` (its payload type is the source's; subscribers write their own). */
  push(kind: MediaKind, bytes: Buffer): void {
    const fan = this.tracks.get(kind);
    if (this.#closed || !fan) return;
    let packet: RtpPacket;
    try {
      packet = RtpPacket.deSerialize(bytes);
    } catch {
      return;
    }
    this.#lastRtpAt = this.opts.clock.now();
    const sent = this.#sent.get(kind);
    if (sent?.ssrc === packet.header.ssrc) {
      sent.packets = (sent.packets + 1) >>> 0;
      sent.octets = (sent.octets + packet.payload.length) >>> 0;
    } else {
      this.#sent.set(kind, { ssrc: packet.header.ssrc, packets: 1, octets: packet.payload.length });
    }
    this.opts.traffic.countRtp('in', kind, packet.serializeSize);
    fan.push(packet);
  }

  /** The source's clock mapping for `kind`, passed on to subscribers as a WHIP publisher's RTCP SR would be. */
  pushSenderReport(kind: MediaKind, mapping: ClockMapping): void {
    const sent = this.#sent.get(kind);
    if (this.#closed || !sent) return;
    this.tracks.get(kind)?.pushSenderReport(senderReport(sent.ssrc, mapping, sent.packets, sent.octets));
  }

  /** The tracks as subscribers take them (no simulcast: the same for every layer asked). */
  switchingSources(): ReadonlyMap<MediaKind, ForwardSource> {
    return this.tracks;
  }

  /** Whether RTP arrived within the last `withinMs`. */
  sending(withinMs: number): boolean {
    return !this.#closed && this.opts.clock.now() - this.#lastRtpAt < withinMs;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
