import { RtpHeader, RtpPacket } from 'werift';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { ForwardSource } from './forward.ts';
import { streamStartFor, SubscriberGate } from './gate.ts';

/** How often a subscriber still waiting for its first keyframe asks again. */
const KEYFRAME_RETRY_MS = 1000;

/**
 * One subscriber's sink on a published track: every packet passes the track's `SubscriberGate` and goes out with
 * a fresh header (the subscriber's numbers; a sink must not mutate the shared packet). What WHEP sessions and the
 * in-process tap share. `onWaitAgain` is called when the publisher's stream changed and the gate closed again.
 */
export function attachGated(
  source: ForwardSource,
  clock: Clock,
  send: (packet: RtpPacket) => void,
  hooks: { readonly accept?: () => boolean; readonly onWaitAgain?: () => void } = {},
): { readonly gate: SubscriberGate; readonly detach: () => void } {
  const codec = source.codec.mimeType.split('/')[1]!;
  const gate = new SubscriberGate(streamStartFor(codec, () => source.parameterSets()), source.codec.clockRate);
  const detach = source.addSink((packet) => {
    if (hooks.accept && !hooks.accept()) return;
    const h = packet.header;
    const wasOpen = !gate.waiting;
    const r = gate.admit({ ssrc: h.ssrc, seq: h.sequenceNumber, timestamp: h.timestamp, payload: packet.payload }, clock.now());
    if (wasOpen && gate.waiting) hooks.onWaitAgain?.();
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
  });
  return { gate, detach };
}

/**
 * Keyframe requests of one subscriber: once when it starts (the PLI a joining viewer owes its publisher), then
 * every second while its video gate waits (docs/channel.md, "Clean starts").
 */
export class KeyframeAsker {
  #retry: TimerHandle | undefined;
  #stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly video: ForwardSource | undefined,
    private readonly waiting: () => boolean,
  ) {}

  get retrying(): boolean {
    return this.#retry !== undefined;
  }

  ask(first = false): void {
    this.#retry = undefined;
    const waiting = this.waiting();
    if (this.#stopped || (!first && !waiting)) return;
    this.video?.requestKeyframe();
    if (!waiting) return;
    this.#retry = this.clock.setTimeout(() => this.ask(), KEYFRAME_RETRY_MS);
  }

  stop(): void {
    this.#stopped = true;
    if (this.#retry) this.clock.clearTimeout(this.#retry);
    this.#retry = undefined;
  }
}
