/**
 * Individual mode's source of speaker levels, per user: the RFC 6464 level each audio packet carries when its
 * publisher sends one (Chromium does; docs/tasks/speaker-timeline.md, "Where the levels come from"), otherwise the
 * level of its Opus decoded to mono PCM by the mix's own decoder (one small ffmpeg per user, about a hundredth of a
 * core; docs/recording-mix.md, "Audio decoding"). Both are dated on the sender's clock by its RTCP sender reports,
 * as the mix dates its audio (by the packets' arrival before the first report, and for a sender whose clock is more
 * than DISTRUST_MS from ours). A user whose packets carry levels is decoded only when the audio itself is wanted
 * (a transcription). Only with `speakerTimeline`.
 */
import type { Clock } from '../../../clock/index.ts';
import type { RtpTrackDescription } from '../../../media/index.ts';
import { rtpAudioLevelToDbfs, type PcmFrame } from '../../../media/mix/index.ts';
import { ntpToUnixMs, SenderClock, type SenderReport, UserAudioDecoder } from '../../../media/mix/live/index.ts';
import { LEVEL_FRAME_MS, type LevelFrame } from '../../../media/speech/index.ts';
import { isRtcp, opusPacketSamples, readAudioLevel, readRtpHeader } from '../../../rtp-payload/index.ts';

/** A sender report this far from our clock when it comes says the sender's clock is wrong: arrival dates it instead. */
const DISTRUST_MS = 2000;

export interface SpeakerLevelSinks {
  /** A user's level of one packet from its RFC 6464 extension. */
  readonly onLevel: (uid: string, frame: LevelFrame) => void;
  /**
   * A run of a user's decoded audio that began at `senderTimeMs`: its sound, and its levels unless
   * `levelsInPackets` (the user's packets carry them, `onLevel`).
   */
  readonly onPcm: (uid: string, senderTimeMs: number, pcm: PcmFrame, levelsInPackets: boolean) => void;
  /** Whether the decoded audio is wanted also from users that send levels (a transcription needs the sound). */
  readonly wantsSound: boolean;
}

export class SpeakerLevels {
  readonly #decoders = new Map<string, UserAudioDecoder>();
  readonly #clocks = new Map<string, SenderClock>();
  /** Users whose packets carry levels: a packet of theirs without one (a rare repair) is not decoded for its level. */
  readonly #withLevels = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly sinks: SpeakerLevelSinks,
  ) {}

  /** A packet of the user's audio track (RTCP is passed over; so is any codec but Opus). */
  push(uid: string, track: RtpTrackDescription, packet: Buffer): void {
    if (isRtcp(packet) || track.codec !== 'opus') return;
    const id = track.audioLevelExtensionId;
    const level = id === undefined ? undefined : readAudioLevel(packet, id);
    // A packet whose header does not read (a padding count past its end) is left to the decoder, which drops it.
    const h = level && readRtpHeader(packet);
    if (level && h) {
      const clock = this.#clockOf(uid, track.clockRate);
      clock.packetArrived(h.timestamp, this.clock.now());
      const atMs = clock.wallTimeOf(h.timestamp)!;
      const samples = opusPacketSamples(packet.subarray(h.payloadOffset, h.payloadEnd));
      const durationMs = samples ? (samples * 1000) / track.clockRate : LEVEL_FRAME_MS;
      this.sinks.onLevel(uid, { atMs, durationMs, levelDbfs: rtpAudioLevelToDbfs(level.level) });
      this.#withLevels.add(uid);
    }
    if (this.#withLevels.has(uid) && !this.sinks.wantsSound) return;
    let decoder = this.#decoders.get(uid);
    if (!decoder) {
      decoder = new UserAudioDecoder({
        track,
        channels: 1,
        clock: this.#clockOf(uid, track.clockRate),
        now: () => this.clock.now(),
        onPcm: (senderTimeMs, pcm) => this.sinks.onPcm(uid, senderTimeMs, pcm, this.#withLevels.has(uid)),
      });
      this.#decoders.set(uid, decoder);
    }
    decoder.push(packet);
  }

  /** A sender report of the user's audio. */
  senderReport(uid: string, report: SenderReport, track: { readonly clockRate: number }): void {
    const clock = this.#clockOf(uid, track.clockRate);
    if (Math.abs(ntpToUnixMs(report.ntpTimestamp) - this.clock.now()) > DISTRUST_MS) clock.distrustReports();
    else clock.senderReport(report);
  }

  /** The user's audio ended: what is queued is decoded, then the decoder goes. */
  async end(uid: string): Promise<void> {
    this.#clocks.delete(uid);
    this.#withLevels.delete(uid);
    const decoder = this.#decoders.get(uid);
    if (!decoder) return;
    this.#decoders.delete(uid);
    decoder.flush();
    await decoder.stop();
  }

  async endAll(): Promise<void> {
    await Promise.all([...new Set([...this.#decoders.keys(), ...this.#clocks.keys()])].map((uid) => this.end(uid)));
  }

  #clockOf(uid: string, clockRate: number): SenderClock {
    let clock = this.#clocks.get(uid);
    if (!clock) this.#clocks.set(uid, (clock = new SenderClock(clockRate)));
    return clock;
  }
}
