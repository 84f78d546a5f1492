import { performance } from 'node:perf_hooks';
import {
  GenericNack,
  PictureLossIndication,
  RtcpPayloadSpecificFeedback,
  RtcpTransportLayerFeedback,
  type RTCRtpTransceiver,
  type RtcpPacket,
  type RtpPacket,
} from 'werift';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { MediaKind } from '../membership/index.ts';
import { firPacket } from './fir.ts';
import { NackTracker } from './nack-tracker.ts';
import type { ChannelTraffic, KeyframeRequestType } from './traffic.ts';
import { TwccFeedback } from './twcc.ts';
import { negotiatedFeedback, takeOverReceiver, type NegotiatedFeedback } from './werift-hooks.ts';

/** How often NACKs are reconsidered while a packet is missing. */
const NACK_TICK_MS = 10;
/** How often transport-wide congestion control feedback goes out while packets arrive (Chromium: 50-100 ms). */
const TWCC_INTERVAL_MS = 50;

/** Streams of one section tracked at most: a simulcast publisher sends up to three, a new encoder one more. */
const STREAMS_PER_SECTION = 4;

interface Track {
  readonly transceiver: RTCRtpTransceiver;
  readonly feedback: NegotiatedFeedback;
  /** Per SSRC (the section's simulcast layers), when NACK was negotiated; oldest first. */
  readonly nacks: Map<number, NackTracker> | undefined;
  /** The latest stream's SSRC. */
  ssrc: number | undefined;
}

/** A raw RTCP packet for werift's `sendRtcp`, which only calls `serialize()`. */
const raw = (bytes: Buffer): RtcpPacket => ({ serialize: () => bytes }) as unknown as RtcpPacket;

/**
 * What a receiving peer tells the sender about the packets it receives (docs/channel.md, "Loss on each hop"): NACKs
 * for gaps (`NackTracker`: at once, again every measured round trip, until a repair can no longer arrive within its
 * deadline), a keyframe request when a video packet is given up (`onUnrepairable`), transport-wide congestion
 * control feedback every 50 ms when the sender numbers its packets (Chromium does), and PLI/FIR on request. Two
 * receivers use it: the SFU for each publisher (`PublishSession`), and the WHEP client (remote recorders, viewers
 * of the tests and benches) for the node's stream.
 */
export class ReceiveFeedback {
  readonly #tracks = new Map<MediaKind, Track>();
  readonly #twcc = new TwccFeedback();
  #twccUsed = false;
  #lastTwccAt = -Infinity;
  #timer: TimerHandle | undefined;
  #timerDue = 0;
  #firSeq = 0;
  #closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly traffic: ChannelTraffic,
    /** A video packet was given up: the stream `ssrc` needs a keyframe. */
    private readonly onUnrepairable: (kind: MediaKind, ssrc: number) => void,
  ) {}

  /** After negotiation: takes the section's receiver over from werift (webrtc/werift-hooks.ts). */
  attach(t: RTCRtpTransceiver): void {
    const kind = t.kind as MediaKind;
    const feedback = negotiatedFeedback(t);
    this.#tracks.set(kind, { transceiver: t, feedback, nacks: feedback.nack ? new Map() : undefined, ssrc: undefined });
    takeOverReceiver(t.receiver, feedback.rtxPayloadTypes, {
      onTransportSeq: (tsn) => {
        this.#twcc.record(tsn, performance.now() * 1000);
        this.#twccUsed = true;
        this.#arm(TWCC_INTERVAL_MS);
      },
      onRtx: () => this.traffic.rtx.in++,
    });
  }

  /**
   * A packet of the track arrived (RTX already unwrapped). False when it is a copy of one that already arrived
   * (NACKed tracks only): it is not forwarded again.
   */
  observe(kind: MediaKind, packet: RtpPacket): boolean {
    const track = this.#tracks.get(kind);
    if (!track?.nacks) return true;
    const ssrc = packet.header.ssrc;
    track.ssrc = ssrc;
    let nacks = track.nacks.get(ssrc);
    if (!nacks) {
      nacks = new NackTracker();
      track.nacks.set(ssrc, nacks);
      if (track.nacks.size > STREAMS_PER_SECTION) track.nacks.delete(track.nacks.keys().next().value!);
    }
    const seen = nacks.observe(packet.header.sequenceNumber, this.clock.now());
    if (nacks.missing > 0) this.#arm(0);
    if (seen.duplicate) this.traffic.duplicates++;
    return !seen.duplicate;
  }

  /** Sends a PLI or FIR for `ssrc`, whichever the publisher negotiated (FIR only when asked for and offered). */
  sendKeyframeRequest(kind: MediaKind, ssrc: number, type: KeyframeRequestType): void {
    const track = this.#tracks.get(kind);
    if (!track) return;
    const { pli, fir } = track.feedback;
    const useFir = fir && (type === 'fir' || !pli);
    if (!useFir && !pli) return;
    const receiver = track.transceiver.receiver;
    if (useFir) {
      this.traffic.fir.out++;
      this.#firSeq = (this.#firSeq + 1) & 0xff;
      this.#send(track, [firPacket(receiver.rtcpSsrc, ssrc, this.#firSeq)]);
    } else {
      this.traffic.pli.out++;
      this.#send(track, [new RtcpPayloadSpecificFeedback({ feedback: new PictureLossIndication({ senderSsrc: receiver.rtcpSsrc, mediaSsrc: ssrc }) })]);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Runs the tick in `ms` at the latest (an earlier tick already armed stays). */
  #arm(ms: number): void {
    if (this.#closed) return;
    const due = this.clock.now() + ms;
    if (this.#timer) {
      if (this.#timerDue <= due) return;
      this.clock.clearTimeout(this.#timer);
    }
    this.#timerDue = due;
    this.#timer = this.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#tick();
    }, ms);
  }

  #tick(): void {
    if (this.#closed) return;
    const now = this.clock.now();
    let missing = 0;
    for (const [kind, track] of this.#tracks) {
      for (const [ssrc, nacks] of track.nacks ?? []) {
        const { nack, lost } = nacks.due(now);
        if (nack.length > 0) {
          this.traffic.nack.out++;
          const receiver = track.transceiver.receiver;
          this.#send(track, [new RtcpTransportLayerFeedback({ feedback: new GenericNack({ senderSsrc: receiver.rtcpSsrc, mediaSourceSsrc: ssrc, lost: nack }) })]);
        }
        if (lost.length > 0) {
          this.traffic.unrepaired += lost.length;
          if (kind === 'video') {
            this.traffic.keyframeOnLoss++;
            this.onUnrepairable(kind, ssrc);
          }
        }
        missing += nacks.missing;
      }
    }
    const perf = this.clock.now();
    if (this.#twccUsed && perf - this.#lastTwccAt >= TWCC_INTERVAL_MS) this.#sendTwcc(perf);
    if (missing > 0) this.#arm(NACK_TICK_MS);
    else if (this.#twcc.pending > 0) this.#arm(Math.max(0, TWCC_INTERVAL_MS - (perf - this.#lastTwccAt)));
  }

  #sendTwcc(now: number): void {
    const track = this.#tracks.get('video') ?? this.#tracks.values().next().value;
    if (!track) return;
    this.#lastTwccAt = now;
    for (let i = 0; i < 4; i++) {
      const bytes = this.#twcc.build(track.transceiver.receiver.rtcpSsrc, track.ssrc ?? 0);
      if (!bytes) break;
      this.traffic.twccOut++;
      this.#send(track, [raw(bytes)]);
    }
  }

  #send(track: Track, packets: RtcpPacket[]): void {
    const transport = track.transceiver.receiver.dtlsTransport;
    if (transport?.state !== 'connected') return;
    transport.sendRtcp(packets).catch(() => undefined);
  }
}
