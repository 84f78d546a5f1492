/**
 * Individual mode's source of speaker levels: each user's Opus decoded to mono PCM by the mix's own decoder (one
 * small ffmpeg per user, about a hundredth of a core; docs/recording-mix.md, "Audio decoding"), dated on the
 * sender's clock by its RTCP sender reports as the mix dates it (by the packets' arrival before the first report, and
 * for a sender whose clock is more than DISTRUST_MS from ours), handed to the speaker timeline. Only with
 * `speakerTimeline`.
 */
import type { Clock } from '../../../clock/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import type { PcmFrame } from '../../../media/mix/index.ts';
import { ntpToUnixMs, SenderClock, type SenderReport, UserAudioDecoder } from '../../../media/mix/live/index.ts';

/** A sender report this far from our clock when it comes says the sender's clock is wrong: arrival dates it instead. */
const DISTRUST_MS = 2000;
import { isRtcp } from '../../../rtp-payload/index.ts';

export class DecodedAudioLevels {
  readonly #decoders = new Map<string, UserAudioDecoder>();
  readonly #clocks = new Map<string, SenderClock>();

  constructor(
    private readonly clock: Clock,
    private readonly onPcm: (uid: string, senderTimeMs: number, pcm: PcmFrame) => void,
  ) {}

  /** A packet of the user's audio track (RTCP is passed over; so is any codec but Opus). */
  push(uid: string, track: RtpTrackDescription, packet: Buffer): void {
    if (isRtcp(packet) || track.codec !== 'opus') return;
    let decoder = this.#decoders.get(uid);
    if (!decoder) {
      const clock = this.#clocks.get(uid) ?? new SenderClock(track.clockRate);
      this.#clocks.set(uid, clock);
      decoder = new UserAudioDecoder({
        track,
        channels: 1,
        clock,
        now: () => this.clock.now(),
        onPcm: (senderTimeMs, pcm) => this.onPcm(uid, senderTimeMs, pcm),
      });
      this.#decoders.set(uid, decoder);
    }
    decoder.push(packet);
  }

  /** A sender report of the user's audio. */
  senderReport(uid: string, report: SenderReport, track: { readonly clockRate: number }): void {
    let clock = this.#clocks.get(uid);
    if (!clock) this.#clocks.set(uid, (clock = new SenderClock(track.clockRate)));
    if (Math.abs(ntpToUnixMs(report.ntpTimestamp) - this.clock.now()) > DISTRUST_MS) clock.distrustReports();
    else clock.senderReport(report);
  }

  /** The user's audio ended: what is queued is decoded, then the decoder goes. */
  async end(uid: string): Promise<void> {
    this.#clocks.delete(uid);
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
