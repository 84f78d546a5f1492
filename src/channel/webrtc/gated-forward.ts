import { RtpHeader, RtpPacket } from 'werift';
import { audioLevelBlock } from '../../rtp-payload/index.ts';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { ForwardSource } from './forward.ts';
import { streamStartFor, SubscriberGate } from './gate.ts';

/** How often a subscriber still waiting for its first keyframe asks again. */
const KEYFRAME_RETRY_MS = 1000;

/**
 * A packet as it goes to one subscriber: the publisher's payload and stream with the subscriber's numbers. Each
 * subscriber builds what it sends from it (a werift packet for WebRTC, bytes for the in-process tap), so the shared
 * packet is never mutated.
 */
export interface GatedPacket {
  readonly payloadType: number;
  readonly ssrc: number;
  readonly marker: boolean;
  readonly sequenceNumber: number;
  readonly timestamp: number;
  readonly payload: Buffer;
  readonly padding: boolean;
  readonly paddingSize: number;
  /** Audio: the publisher's RFC 6464 level byte for this packet, when it sends one. */
  readonly audioLevel?: number | undefined;
}

/** The id under which the in-process tap's packets carry the audio level (their only extension). */
export const TAP_AUDIO_LEVEL_ID = 1;

/**
 * A fresh werift packet for a WebRTC sender (which rewrites SSRC, payload type and extensions in place, and keeps an
 * extension it does not write itself): the audio level under the id the viewer negotiated, when both are there.
 */
export function gatedRtpPacket(p: GatedPacket, audioLevelId?: number): RtpPacket {
  const header = new RtpHeader({
    marker: p.marker,
    payloadType: p.payloadType,
    sequenceNumber: p.sequenceNumber,
    timestamp: p.timestamp,
    ssrc: p.ssrc,
    padding: p.padding,
    paddingSize: p.paddingSize,
    csrc: [],
    extensions: p.audioLevel !== undefined && audioLevelId !== undefined ? [{ id: audioLevelId, payload: Buffer.from([p.audioLevel]) }] : [],
  });
  return new RtpPacket(header, p.payload);
}

/**
 * The packet as RTP bytes: a 12-byte header (no CSRCs or padding; the audio level as the only extension, under
 * TAP_AUDIO_LEVEL_ID, when there is one) and the payload. What the in-process tap hands on; building it directly
 * costs a fraction of a werift header and its serialisation.
 */
export function serializeGated(p: GatedPacket): Buffer {
  const level = p.audioLevel === undefined ? undefined : audioLevelBlock(TAP_AUDIO_LEVEL_ID, p.audioLevel);
  const head = 12 + (level?.length ?? 0);
  const out = Buffer.allocUnsafe(head + p.payload.length);
  out[0] = level ? 0x90 : 0x80;
  out[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f);
  out.writeUInt16BE(p.sequenceNumber & 0xffff, 2);
  out.writeUInt32BE(p.timestamp >>> 0, 4);
  out.writeUInt32BE(p.ssrc >>> 0, 8);
  level?.copy(out, 12);
  p.payload.copy(out, head);
  return out;
}

/**
 * One subscriber's sink on a published track: every packet passes the track's `SubscriberGate` and goes out with
 * the subscriber's numbers (a sink must not mutate the shared packet). What WHEP sessions and the in-process tap
 * share. `onWaitAgain` is called when the publisher's stream changed and the gate closed again. `startFromGop` is
 * called once the subscriber can receive: while its gate still waits, the publisher's cached GOP (a publisher that
 * cannot be asked for a keyframe, `GopCache`) goes through it at once, so the subscriber starts from that keyframe
 * rather than the next; the cache ends with the latest packet, so the live ones follow on.
 */
export function attachGated(
  source: ForwardSource,
  clock: Clock,
  send: (packet: GatedPacket) => void,
  hooks: { readonly accept?: () => boolean; readonly onWaitAgain?: () => void } = {},
): { readonly gate: SubscriberGate; readonly detach: () => void; readonly startFromGop: () => void } {
  const codec = source.codec.mimeType.split('/')[1]!;
  const gate = new SubscriberGate(streamStartFor(codec, () => source.parameterSets()), source.codec.clockRate);
  const sink = (packet: RtpPacket, behind: boolean) => {
    if (hooks.accept && !hooks.accept()) return;
    const h = packet.header;
    const wasOpen = !gate.waiting;
    const r = gate.admit({ ssrc: h.ssrc, seq: h.sequenceNumber, timestamp: h.timestamp, payload: packet.payload, behind }, clock.now());
    if (wasOpen && gate.waiting) hooks.onWaitAgain?.();
    for (const x of r.inject) {
      send({ payloadType: h.payloadType, ssrc: h.ssrc, marker: false, sequenceNumber: x.seq, timestamp: x.timestamp, payload: x.payload, padding: false, paddingSize: 0 });
    }
    if (!r.forward) return;
    send({
      payloadType: h.payloadType,
      ssrc: h.ssrc,
      marker: h.marker,
      sequenceNumber: r.forward.seq,
      timestamp: r.forward.timestamp,
      payload: packet.payload,
      padding: h.padding,
      paddingSize: h.paddingSize,
      audioLevel: source.audioLevelOf?.(packet),
    });
  };
  const detach = source.addSink(sink);
  const startFromGop = () => {
    if (gate.waiting) for (const p of source.gop()) sink(p, false);
  };
  return { gate, detach, startFromGop };
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
