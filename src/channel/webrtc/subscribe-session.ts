import { RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';
import type { TimerHandle } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import type { ForwardSource } from './forward.ts';
import { startsKeyframe } from './keyframe.ts';
import { PeerSession, type PeerSessionOptions } from './peer-session.ts';

export interface SubscribeSessionOptions extends PeerSessionOptions {
  /** The publisher's tracks by kind. */
  readonly sources: ReadonlyMap<MediaKind, ForwardSource>;
  /** Whether the publisher is still sending; a subscriber of a silent publisher sends no RTCP either. */
  readonly publisherSending: (withinMs: number) => boolean;
}

/** How often a subscriber still waiting for its first keyframe asks again. */
const KEYFRAME_RETRY_MS = 1000;

/**
 * One WHEP session: a send-only peer fed from a publisher's tracks without transcoding. Video is held back until
 * a keyframe so the subscriber's first frame decodes; the publisher is asked for one when the peer connects and
 * whenever the subscriber sends a PLI. NACKs are answered from the werift sender's packet history.
 */
export class SubscribeSession extends PeerSession {
  readonly #detach: (() => void)[] = [];
  #retry: TimerHandle | undefined;
  #waitingKeyframe = true;

  constructor(private readonly opts: SubscribeSessionOptions) {
    super(opts);
  }

  async negotiate(offer: string, kinds: readonly MediaKind[]): Promise<string> {
    // Send-only transceivers made before the offer is applied take its m-sections of the same kind.
    this.#waitingKeyframe = kinds.includes('video') && this.opts.sources.has('video');
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

  /** On connect always (the PLI a joining viewer owes its publisher), then every second until a keyframe passed. */
  #askKeyframe(first = false): void {
    if (this.closed || (!first && !this.#waitingKeyframe)) return;
    this.opts.sources.get('video')?.requestKeyframe();
    if (!this.#waitingKeyframe) return;
    this.#retry = this.opts.clock.setTimeout(() => this.#askKeyframe(), KEYFRAME_RETRY_MS);
  }

  #wire(t: RTCRtpTransceiver): void {
    const kind = t.kind as MediaKind;
    const sender = t.sender;
    sender.onRtcp.subscribe(() => this.touch());
    const source = this.opts.sources.get(kind);
    if (!source) return;
    if (kind === 'video') {
      sender.onPictureLossIndication.subscribe(() => source.requestKeyframe());
    }
    const codec = source.codec.mimeType.split('/')[1]!;
    let open = kind !== 'video';
    this.#detach.push(
      source.addSink((packet) => {
        if (sender.dtlsTransport.state !== 'connected') return;
        if (!open) {
          if (!startsKeyframe(codec, packet.payload)) return;
          open = true;
          this.#waitingKeyframe = false;
        }
        // A fresh header per subscriber: werift's sender rewrites SSRC, payload type and extensions in place.
        const h = packet.header;
        const header = new RtpHeader({
          marker: h.marker,
          payloadType: h.payloadType,
          sequenceNumber: h.sequenceNumber,
          timestamp: h.timestamp,
          ssrc: h.ssrc,
          padding: h.padding,
          paddingSize: h.paddingSize,
          csrc: [],
          extensions: [],
        });
        sender.sendRtp(new RtpPacket(header, packet.payload)).catch(() => undefined);
      }),
    );
  }
}
