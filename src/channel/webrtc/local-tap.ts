import type { Clock } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import type { ForwardSource } from './forward.ts';
import type { SubscriberGate } from './gate.ts';
import { attachGated, KeyframeAsker, serializeGated } from './gated-forward.ts';
import type { TrackCodec } from './sdp.ts';

/**
 * A packet of a tapped track as RTP bytes of its own: a 12-byte header with the subscriber's numbers, then the
 * publisher's payload (no header extensions or padding).
 */
export type TapPacketListener = (kind: MediaKind, codec: TrackCodec, packet: Buffer) => void;

/** A sender report of a tapped track: the publisher's NTP time and the same instant in the tap's timestamps. */
export interface TapSenderReport {
  readonly ssrc: number;
  readonly ntpTimestamp: bigint;
  readonly rtpTimestamp: number;
}

export type TapSenderReportListener = (kind: MediaKind, report: TapSenderReport) => void;

export interface LocalTapOptions {
  readonly sources: ReadonlyMap<MediaKind, ForwardSource>;
  readonly kinds: readonly MediaKind[];
  readonly clock: Clock;
  readonly onPacket: TapPacketListener;
  /** The publisher's RTCP sender reports, translated like a WHEP subscriber's (docs/channel.md). */
  readonly onSenderReport?: TapSenderReportListener;
}

/**
 * An in-process subscriber: the publisher's RTP straight from the SFU's forwarding path (`TrackFanout` sinks),
 * with no WebRTC hop (no SRTP encrypt and decrypt, no second packetisation). It is gated like a WHEP subscriber
 * (`SubscriberGate`: video from a keyframe on, continuous numbers), gets the publisher's sender reports in its own
 * timestamps, and asks for keyframes like one: on start,
 * every second while video waits, after a stream change, and on `requestKeyframe`.
 */
export class LocalTap {
  readonly #detach: (() => void)[] = [];
  readonly #keyframes: KeyframeAsker;
  #videoGate: SubscriberGate | undefined;
  #closed = false;

  constructor(private readonly opts: LocalTapOptions) {
    const video = opts.kinds.includes('video') ? opts.sources.get('video') : undefined;
    this.#keyframes = new KeyframeAsker(opts.clock, video, () => this.#videoGate?.waiting ?? false);
    for (const kind of opts.kinds) {
      const source = opts.sources.get(kind);
      if (!source) continue;
      const { gate, detach, startFromGop } = attachGated(source, opts.clock, (p) => opts.onPacket(kind, source.codec, serializeGated(p)), {
        onWaitAgain: () => {
          if (kind === 'video' && !this.#keyframes.retrying) this.#keyframes.ask(true);
        },
      });
      // After the caller has its tap (a microtask runs before the next packet can arrive, so the GOP is current).
      queueMicrotask(() => {
        if (!this.#closed) startFromGop();
      });
      if (kind === 'video') this.#videoGate = gate;
      this.#detach.push(detach);
      const onReport = opts.onSenderReport;
      if (onReport) {
        this.#detach.push(
          source.addSenderReportSink((sr) => {
            const rtpTimestamp = gate.outgoingTimestamp(sr.ssrc, sr.senderInfo.rtpTimestamp);
            if (rtpTimestamp !== undefined) onReport(kind, { ssrc: sr.ssrc, ntpTimestamp: sr.senderInfo.ntpTimestamp, rtpTimestamp });
          }),
        );
      }
    }
    this.#keyframes.ask(true);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A new consumer (a slicer) needs a clean start: ask the publisher for a keyframe (rate-limited there). */
  requestKeyframe(): void {
    if (!this.#closed && this.opts.kinds.includes('video')) this.opts.sources.get('video')?.requestKeyframe();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#keyframes.stop();
    for (const d of this.#detach) d();
  }
}
