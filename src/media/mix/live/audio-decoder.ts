/**
 * One user's Opus audio → 48 kHz s16 PCM stamped with the sender's wall-clock time (docs/recording-mix.md, "Live
 * pipeline"). An ffmpeg child decodes the RTP stream to a pipe; `aresample` fills timestamp gaps with silence and
 * starts at pts 0, so output sample k is RTP timestamp base + k, where base is the first packet this child was
 * given. The user's SenderClock (RTCP sender reports) turns that into wall time. A jump of more than a second in
 * the RTP timestamps (the sender paused, or a new source) starts a new child from that packet instead of having
 * ffmpeg write the whole pause as silence.
 */
import type { PcmFrame } from '../audio-mixer.ts';
import { MIX_SAMPLE_RATE } from '../audio-profile.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import { type DecoderSlot, type RtpDecoderProcess, safeName, startDecoderSlot } from './rtp-decoder.ts';
import { readRtpHeader } from './rtp-header.ts';
import { rtpTimestampDelta, type SenderClock } from './sender-clock.ts';

export interface UserAudioDecoderOptions {
  readonly uid: string;
  readonly track: RtpTrackDescription;
  readonly workDir: string;
  readonly channels: 1 | 2;
  readonly clock: SenderClock;
  readonly now: () => number;
  readonly onPcm: (senderTimeMs: number, pcm: PcmFrame) => void;
}

/** A timestamp jump beyond this (in either direction) restarts the decoder at the new packet. */
const RESTART_GAP_SAMPLES = MIX_SAMPLE_RATE;
const HELD_LIMIT = 500;
const DEAD_RESTART_INTERVAL_MS = 1000;

interface Running extends DecoderSlot {
  readonly baseTimestamp: number;
  readonly ssrc: number;
  /** Samples (per channel) written by this child so far. */
  samples: number;
}

export class UserAudioDecoder {
  #running: Running | undefined;
  #lastTimestamp = 0;
  #generation = 0;
  #stopped = false;
  #startedAtMs = -Infinity;

  constructor(private readonly options: UserAudioDecoderOptions) {
    const rate = options.track.clockRate;
    if (rate !== MIX_SAMPLE_RATE) throw new RangeError(`Opus RTP runs at 48 kHz, got ${rate}`);
  }

  push(packet: Buffer): void {
    if (this.#stopped) return;
    const header = readRtpHeader(packet);
    if (!header || header.payloadType !== this.options.track.payloadType) return;
    this.options.clock.packetArrived(header.timestamp, this.options.now());
    const running = this.#running;
    const jump = running ? rtpTimestampDelta(header.timestamp, this.#lastTimestamp) : 0;
    const dead = running?.process !== undefined && !running.process.running;
    // A child that died is replaced at most once a second, so a stream ffmpeg cannot decode is no spawn loop.
    if (dead && this.options.now() - this.#startedAtMs < DEAD_RESTART_INTERVAL_MS) return;
    const restart = !running || dead || header.ssrc !== running.ssrc || Math.abs(jump) > RESTART_GAP_SAMPLES;
    if (restart) this.#restart(header.timestamp, header.ssrc, packet);
    else if (running.process) running.process.push(packet);
    else if (running.held.length < HELD_LIMIT) running.held.push(packet);
    if (restart || jump > 0) this.#lastTimestamp = header.timestamp;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#running;
    this.#running = undefined;
    await running?.process?.stop();
  }

  #restart(baseTimestamp: number, ssrc: number, first: Buffer): void {
    this.#startedAtMs = this.options.now();
    void this.#running?.process?.stop();
    const running: Running = { process: undefined, held: [first], baseTimestamp, ssrc, samples: 0 };
    this.#running = running;
    const generation = ++this.#generation;
    const args = [
      '-vn', '-threads', '1',
      '-af', 'aresample=async=1:min_hard_comp=0.01:first_pts=0',
      '-ac', String(this.options.channels), '-ar', String(MIX_SAMPLE_RATE),
      '-f', 's16le', 'pipe:3',
    ];
    const name = `audio-${safeName(this.options.uid)}-${generation}`;
    const wanted = (): boolean => !this.#stopped && this.#running === running;
    startDecoderSlot(running, this.options.track, this.options.workDir, name, args, wanted, (process) => this.#readPcm(process, running));
  }

  #readPcm(process: RtpDecoderProcess, running: Running): void {
    const frameBytes = 2 * this.options.channels;
    let rest = Buffer.alloc(0);
    process.output.on('data', (chunk: Buffer) => {
      const bytes = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      const usable = bytes.length - (bytes.length % frameBytes);
      rest = Buffer.from(bytes.subarray(usable));
      if (usable === 0 || this.#stopped || this.#running !== running) return;
      // A copy: the chunk's offset may be odd, and the timeline reads the samples later.
      const samples = new Int16Array(usable / 2);
      Buffer.from(samples.buffer).set(bytes.subarray(0, usable));
      const at = this.options.clock.wallTimeOf((running.baseTimestamp + running.samples) >>> 0);
      running.samples += usable / frameBytes;
      if (at !== undefined) this.options.onPcm(at, { samples, channels: this.options.channels });
    });
  }
}
