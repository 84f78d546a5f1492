/**
 * Individual mode's source of speaker levels: each user's Opus decoded to mono PCM by the mix's own decoder (one
 * small ffmpeg per user, about a hundredth of a core; docs/recording-mix.md, "Audio decoding"), dated by the
 * packets' arrival (a sender clock with no reports), handed to the speaker timeline. Only with `speakerTimeline`.
 */
import type { Clock } from '../../../clock/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import type { PcmFrame } from '../../../media/mix/index.ts';
import { SenderClock, UserAudioDecoder } from '../../../media/mix/live/index.ts';
import { isRtcp } from '../../../rtp-payload/index.ts';

export class DecodedAudioLevels {
  readonly #decoders = new Map<string, UserAudioDecoder>();

  constructor(
    private readonly clock: Clock,
    private readonly onPcm: (uid: string, senderTimeMs: number, pcm: PcmFrame) => void,
  ) {}

  /** A packet of the user's audio track (RTCP is passed over; so is any codec but Opus). */
  push(uid: string, track: RtpTrackDescription, packet: Buffer): void {
    if (isRtcp(packet) || track.codec !== 'opus') return;
    let decoder = this.#decoders.get(uid);
    if (!decoder) {
      decoder = new UserAudioDecoder({
        track,
        channels: 1,
        clock: new SenderClock(track.clockRate),
        now: () => this.clock.now(),
        onPcm: (senderTimeMs, pcm) => this.onPcm(uid, senderTimeMs, pcm),
      });
      this.#decoders.set(uid, decoder);
    }
    decoder.push(packet);
  }

  /** The user's audio ended: what is queued is decoded, then the decoder goes. */
  async end(uid: string): Promise<void> {
    const decoder = this.#decoders.get(uid);
    if (!decoder) return;
    this.#decoders.delete(uid);
    decoder.flush();
    await decoder.stop();
  }

  async endAll(): Promise<void> {
    await Promise.all([...this.#decoders.keys()].map((uid) => this.end(uid)));
  }
}
