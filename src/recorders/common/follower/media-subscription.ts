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
