/** What a recorder gets of one publisher's media (tap or WHEP), and the channel's refusal of a subscription. */
import type { MediaKind } from '../../../channel/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import type { VideoSize } from '../../../rtp-payload/index.ts';
import type { SenderReport } from '../../../media/mix/live/index.ts';

export interface MediaSubscription {
  /** Called once per kind, with the first packet's track description, then for each packet. */
  onPacket(cb: (kind: MediaKind, track: RtpTrackDescription, packet: Buffer) => void): void;
  /**
   * The publisher's RTCP sender reports per kind, as the SFU passes them on (the publisher's NTP time ↔ this
   * subscription's RTP timestamps; docs/channel.md, "Sender reports").
   */
  onSenderReport(cb: (kind: MediaKind, report: SenderReport) => void): void;
  /** Asks the publisher for a keyframe (RTCP PLI), e.g. when a new slice pipeline starts mid-stream. */
  requestKeyframe(): void;
  /**
   * The size the recorder draws this publisher's video at (a mix region): an in-process tap takes the smallest
   * simulcast layer that covers it (docs/recording-mix.md, "Simulcast"). Absent over WHEP, which keeps its layer.
   */
  fitVideo?(size: VideoSize): void;
  close(): Promise<void>;
}

/** A refusal by the channel (token, profile, publisher gone) with its code, e.g. `token_expired`. */
export class ChannelRefusal extends Error {
  override readonly name = 'ChannelRefusal';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly reason: string,
  ) {
    super(`${status} ${code}: ${reason}`);
  }
}

type PacketListener = (kind: MediaKind, track: RtpTrackDescription, packet: Buffer) => void;

/**
 * Packets held for a subscription's first listener at most (about 10 s of a camera and its sound); past it the oldest
 * go, so the listener still gets an unbroken run up to the newest.
 */
const HELD_BEFORE_LISTENER = 2000;

/**
 * The packet listeners of a subscription. A subscription receives from the moment it is made, and its consumer adds
 * its listener only after the `await` that made it: the packets in between are held and given to the first listener,
 * in order, before any other. Dropped, they were the start of the stream (its keyframe: the recording then waited a
 * GOP for the next one), and the NACK repair of a packet lost just before them, arriving once a listener was there,
 * opened the recorder's stream before them: a hole for packets that would never come, given up as lost (the
 * individual loss test's 5 % VP8 stream kept 0.68 of its frames in a whole-suite run, session 24).
 */
export class PacketListeners {
  readonly #listeners: PacketListener[] = [];
  #held: [MediaKind, RtpTrackDescription, Buffer][] | undefined = [];

  add(listener: PacketListener): void {
    this.#listeners.push(listener);
    const held = this.#held;
    this.#held = undefined;
    for (const [kind, track, packet] of held ?? []) listener(kind, track, packet);
  }

  emit(kind: MediaKind, track: RtpTrackDescription, packet: Buffer): void {
    if (this.#held) {
      this.#held.push([kind, track, packet]);
      if (this.#held.length > HELD_BEFORE_LISTENER) this.#held.shift();
      return;
    }
    for (const l of this.#listeners) l(kind, track, packet);
  }
}
