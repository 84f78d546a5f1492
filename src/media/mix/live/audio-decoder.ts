/**
 * One user's Opus audio → 48 kHz s16 PCM stamped with the sender's wall-clock time (docs/recording-mix.md, "Audio
 * decoding"). Each RTP packet's Opus payload becomes one Ogg page (ogg-opus.ts), written to an ffmpeg child
 * through a pipe in batches of a few packets; the Ogg timestamps count the samples written without gaps, and `aresample=async=1` keeps the
 * output on them (a packet the decoder rejects becomes silence), so output sample k is sample k of what was
 * written. This side remembers each packet's RTP timestamp and length, so every run of output samples is dated
 * through the user's SenderClock (RTCP sender reports): a gap in the RTP timestamps (lost packets, a paused
 * sender, a new source) is a gap on the timeline, not samples written by ffmpeg.
 */
import type { PcmFrame } from '../audio-mixer.ts';
import { BatchHold } from './batch-hold.ts';
import { MIX_SAMPLE_RATE } from '../audio-profile.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import { opusPacketSamples } from '../../../rtp-payload/index.ts';
import { OggOpusWriter } from './ogg-opus.ts';
import { PipeDecoderProcess } from './pipe-decoder.ts';
import { readRtpHeader } from '../../../rtp-payload/index.ts';
import type { SenderClock } from './sender-clock.ts';

export interface UserAudioDecoderOptions {
  readonly track: RtpTrackDescription;
  readonly channels: 1 | 2;
  readonly clock: SenderClock;
  readonly now: () => number;
  readonly onPcm: (senderTimeMs: number, pcm: PcmFrame) => void;
  /** Each packet dated by a sender report: its arrival and how far behind its sender time it arrived. */
  readonly onReportedLag?: (arrivalMs: number, lagMs: number) => void;
  /**
   * The mix's jitter window: queued packets are held for up to BatchHold's limit while it leaves room (fewer
   * wake-ups of the child). Without it every `flush` writes.
   */
  readonly latencyMs?: number;
}

const DEAD_RESTART_INTERVAL_MS = 1000;
/**
 * Pages are written in batches, not one write per 20 ms packet: each write wakes the decoder, and a wake-up costs it
 * far more than decoding a packet (measured: one decoder fed 50 writes a second took 0.012 of a core, 15 a second
 * 0.0059, 5 a second 0.0033; decoding the same audio from a file at full speed 0.0013). The pipeline offers a
 * write on every output frame (`flush`); BatchHold decides whether to take it (docs/recording-mix.md, "Batches").
 */
/** Queued audio written at once without waiting for a frame (a pipeline that does not tick). */
const BATCH_LIMIT_SAMPLES = MIX_SAMPLE_RATE / 5;
/** Ogg bytes queued for a child that does not read them (about a minute of speech): it is stuck, and replaced. */
const MAX_BACKLOG_BYTES = 256 * 1024;

/** Consecutive samples written to the child: RTP timestamp of the first, how many, how many came out. */
interface Run {
  readonly rtp: number;
  samples: number;
  decoded: number;
}

interface Running {
  readonly process: PipeDecoderProcess;
  readonly ogg: OggOpusWriter;
  /** What was written and has not come out yet, oldest first. */
  readonly pending: Run[];
  /** Pages not written yet, and how many samples they hold. */
  queue: Buffer[];
  queuedSamples: number;
  /** Samples written and given out so far, and when each write was made (to time the child's delay). */
  written: number;
  decoded: number;
  readonly writes: { readonly endSample: number; readonly atMs: number }[];
}

export class UserAudioDecoder {
  #running: Running | undefined;
  #stopped = false;
  #startedAtMs = -Infinity;
  #lastSequence: number | undefined;
  readonly #hold: BatchHold | undefined;

  constructor(private readonly options: UserAudioDecoderOptions) {
    const rate = options.track.clockRate;
    if (rate !== MIX_SAMPLE_RATE) throw new RangeError(`Opus RTP runs at 48 kHz, got ${rate}`);
    this.#hold = options.latencyMs !== undefined ? new BatchHold({ latencyMs: options.latencyMs }) : undefined;
  }

  push(packet: Buffer): void {
    if (this.#stopped) return;
    const header = readRtpHeader(packet);
    if (!header || header.payloadType !== this.options.track.payloadType) return;
    if (header.sequenceNumber === this.#lastSequence) return; // a duplicate
    this.#lastSequence = header.sequenceNumber;
    const payload = packet.subarray(header.payloadOffset, header.payloadEnd);
    const samples = opusPacketSamples(payload);
    if (samples === undefined) return;
    const now = this.options.now();
    const clock = this.options.clock;
    clock.packetArrived(header.timestamp, now);
    const senderTime = clock.synchronised ? clock.wallTimeOf(header.timestamp) : undefined;
    if (senderTime !== undefined) this.options.onReportedLag?.(now, now - senderTime);
    let running = this.#running;
    if (!running?.process.running) {
      // A child that died is replaced at most once a second, so a stream ffmpeg cannot decode is no spawn loop.
      if (running && this.options.now() - this.#startedAtMs < DEAD_RESTART_INTERVAL_MS) return;
      running = this.#start();
    }
    running.queue.push(running.ogg.packet(payload, samples));
    running.queuedSamples += samples;
    this.#hold?.queued(now, senderTime);
    // Without waiting for the next chance when waiting is already too long (a late packet, a pipeline that does not
    // tick), or the batch is large.
    if (running.queuedSamples >= BATCH_LIMIT_SAMPLES || this.#hold?.shouldWrite(now, now)) this.#write(running);
    const last = running.pending.at(-1);
    if (last && ((last.rtp + last.samples) >>> 0) === header.timestamp) last.samples += samples;
    else running.pending.push({ rtp: header.timestamp, samples, decoded: 0 });
  }

  /**
   * A chance to write the queued pages (the pipeline offers one per output frame); the next comes at
   * `nextChanceMs`. Without a latency window, or when the hold says so, they are written now.
   */
  flush(nextChanceMs?: number): void {
    const running = this.#running;
    if (!running || running.queue.length === 0) return;
    const hold = this.#hold;
    if (hold && nextChanceMs !== undefined && !hold.shouldWrite(this.options.now(), nextChanceMs)) return;
    this.#write(running);
  }

  #write(running: Running): void {
    running.process.write(running.queue.length === 1 ? running.queue[0]! : Buffer.concat(running.queue));
    running.written += running.queuedSamples;
    running.writes.push({ endSample: running.written, atMs: this.options.now() });
    running.queue = [];
    running.queuedSamples = 0;
    this.#hold?.written();
  }

  /** `frames` more samples came out of the child: the writes they complete tell how late it answers. */
  #timeDecoded(running: Running, frames: number): void {
    running.decoded += frames;
    const now = this.options.now();
    while (running.writes.length > 0 && running.writes[0]!.endSample <= running.decoded) {
      // Shifted apart from the call: `#hold?.decoded(…)` evaluates no argument without a hold (no latency window).
      const write = running.writes.shift()!;
      this.#hold?.decoded(now - write.atMs, now);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#running;
    this.#running = undefined;
    await running?.process.stop();
  }

  #start(): Running {
    this.#startedAtMs = this.options.now();
    void this.#running?.process.stop();
    const args = [
      '-vn',
      '-af', 'aresample=async=1:min_hard_comp=0.01:first_pts=0',
      '-ac', String(this.options.channels), '-ar', String(MIX_SAMPLE_RATE),
      '-f', 's16le', 'pipe:4',
    ];
    const process = new PipeDecoderProcess('ogg', args, { outputs: 1, maxBacklogBytes: MAX_BACKLOG_BYTES });
    const ogg = new OggOpusWriter(this.options.track.channels === 1 ? 1 : 2);
    const running: Running = { process, ogg, pending: [], queue: [ogg.headers()], queuedSamples: 0, written: 0, decoded: 0, writes: [] };
    this.#running = running;
    this.#readPcm(running);
    return running;
  }

  #readPcm(running: Running): void {
    const channels = this.options.channels;
    const frameBytes = 2 * channels;
    let rest = Buffer.alloc(0);
    running.process.output(4).on('data', (chunk: Buffer) => {
      const bytes = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      const usable = bytes.length - (bytes.length % frameBytes);
      rest = Buffer.from(bytes.subarray(usable));
      if (usable === 0 || this.#stopped || this.#running !== running) return;
      this.#timeDecoded(running, usable / frameBytes);
      // A copy: the chunk's offset may be odd, and the timeline reads the samples later.
      const all = new Int16Array(usable / 2);
      Buffer.from(all.buffer).set(bytes.subarray(0, usable));
      const frames = usable / frameBytes;
      for (let at = 0; at < frames; ) {
        const run = running.pending[0];
        if (!run) break; // more out than went in (cannot happen with Opus): nothing to date it by
        const take = Math.min(run.samples - run.decoded, frames - at);
        const sent = this.options.clock.wallTimeOf((run.rtp + run.decoded) >>> 0);
        const samples = take === frames ? all : all.subarray(at * channels, (at + take) * channels);
        if (sent !== undefined) this.options.onPcm(sent, { samples, channels });
        run.decoded += take;
        at += take;
        if (run.decoded === run.samples) running.pending.shift();
      }
    });
  }
}
