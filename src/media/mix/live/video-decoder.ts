/**
 * One user's video → I420 frames (docs/recording-mix.md, "Live pipeline"). An ffmpeg child decodes the RTP
 * stream and writes rawvideo yuv420p to a pipe at a fixed size: the source size read from the keyframe
 * (VP8 header or H.264 SPS), scaled down to fit the bound (the canvas) when larger. A keyframe that announces a
 * new size starts a new decoder from that keyframe on; the old one is dropped, the last frame stays on screen
 * meanwhile. Each decoded frame is handed over with the RTP timestamp it was sent with, so the engine can show it
 * on the sender's clock, in step with the audio.
 */
import { type I420Frame, i420ByteLength, i420FromBytes } from '../i420.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import { rmSync } from 'node:fs';
import { FrameSocketReader, frameSocketPath } from './frame-socket.ts';
import { type DecoderSlot, type RtpDecoderProcess, safeName, startDecoderSlot } from './rtp-decoder.ts';
import { readRtpHeader } from './rtp-header.ts';
import type { SenderClock } from './sender-clock.ts';
import { decodeSize, keyframeSize, type VideoSize } from './video-size.ts';

export interface UserVideoDecoderOptions {
  readonly uid: string;
  readonly track: RtpTrackDescription;
  readonly workDir: string;
  /** The largest frame worth decoding: the canvas. */
  readonly bound: VideoSize;
  readonly now: () => number;
  /** This user's video sender clock (RTCP sender reports go there). */
  readonly clock: SenderClock;
  /**
   * A decoded frame and when its sender captured it: the RTP timestamp of the frame it was decoded from (matched
   * in order: VP8 and the H.264 WebRTC profiles do not reorder frames) through the sender clock, never later
   * than its arrival and at most MAX_TRANSIT_MS before it.
   */
  readonly onFrame: (frame: I420Frame, senderTimeMs: number) => void;
  /** No keyframe to start from yet: ask the sender for one (RTCP PLI). Called at most once a second. */
  readonly onKeyframeNeeded?: () => void;
}

const KEYFRAME_REQUEST_INTERVAL_MS = 1000;

interface Running extends DecoderSlot {
  /** The frames given to this child and not yet decoded, oldest first. */
  readonly inFlight: { readonly rtpTimestamp: number; readonly pushedAtMs: number }[];
  readonly source: VideoSize;
  readonly size: VideoSize;
}

const HELD_LIMIT = 2000;
/** A sender time further back than this from arrival is a clock mismatch, not transit. */
export const MAX_TRANSIT_MS = 2000;
/**
 * A frame given to the child this long before a decoded frame came out is taken as dropped by the decoder (a
 * corrupt frame after packet loss), so one lost frame cannot shift every later timestamp. Decoding takes
 * milliseconds; only a decoder starved of CPU for longer makes this skip frames that were not lost, and then
 * its frames are stamped late by at most its own lag.
 */
const STALE_IN_FLIGHT_MS = 500;
const IN_FLIGHT_LIMIT = 120;
/** Spare frame buffers kept per user (about the frames queued within the latency window, plus the shown one). */
const POOL_LIMIT = 16;

export class UserVideoDecoder {
  #running: Running | undefined;
  #generation = 0;
  #stopped = false;
  #lastKeyframeRequestMs = -Infinity;
  readonly #pool: Uint8Array[] = [];
  /** Frames written so far by all decoders of this user (diagnostics, benchmarks). */
  frames = 0;

  constructor(private readonly options: UserVideoDecoderOptions) {}

  get size(): VideoSize | undefined {
    return this.#running?.size;
  }

  push(packet: Buffer): void {
    if (this.#stopped) return;
    const header = readRtpHeader(packet);
    if (!header || header.payloadType !== this.options.track.payloadType) return;
    this.options.clock.packetArrived(header.timestamp, this.options.now());
    const source = keyframeSize(this.options.track.codec, packet.subarray(header.payloadOffset, header.payloadEnd));
    const running = this.#running;
    const dead = running?.process !== undefined && !running.process.running;
    if (source && (!running || dead || running.source.width !== source.width || running.source.height !== source.height)) {
      this.#restart(source, packet);
      if (header.marker) this.#frameSent(this.#running!, header.timestamp);
      return;
    }
    if (!running || dead) return this.#askForKeyframe();
    if (running.process) running.process.push(packet);
    else if (running.held.length < HELD_LIMIT) running.held.push(packet);
    if (header.marker) this.#frameSent(running, header.timestamp);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const running = this.#running;
    this.#running = undefined;
    if (running?.process) await running.process.stop();
  }

  #askForKeyframe(): void {
    const now = this.options.now();
    if (now - this.#lastKeyframeRequestMs < KEYFRAME_REQUEST_INTERVAL_MS) return;
    this.#lastKeyframeRequestMs = now;
    this.options.onKeyframeNeeded?.();
  }

  #restart(source: VideoSize, keyframePacket: Buffer): void {
    void this.#running?.process?.stop();
    const size = decodeSize(source, this.options.bound);
    const generation = ++this.#generation;
    const running: Running = { process: undefined, held: [keyframePacket], inFlight: [], source, size };
    this.#running = running;
    const name = `video-${safeName(this.options.uid)}-${generation}`;
    // Frames come through a Unix socket ffmpeg listens on, read straight into pooled frame buffers (frame-socket.ts).
    const socketPath = frameSocketPath(this.options.workDir, name);
    rmSync(socketPath, { force: true });
    const args = [
      '-an', '-threads', '1', '-vf', `scale=${size.width}:${size.height}:flags=bilinear`, '-pix_fmt', 'yuv420p',
      '-fps_mode', 'passthrough', '-f', 'rawvideo', '-listen', '1', `unix:${socketPath}`,
    ];
    const wanted = (): boolean => !this.#stopped && this.#running === running;
    startDecoderSlot(running, this.options.track, this.options.workDir, name, args, wanted, (process) => this.#readFrames(process, running, socketPath), false);
  }

  #frameSent(running: Running, rtpTimestamp: number): void {
    running.inFlight.push({ rtpTimestamp, pushedAtMs: this.options.now() });
    if (running.inFlight.length > IN_FLIGHT_LIMIT) running.inFlight.shift();
  }

  /** The RTP timestamp of the frame that just came out of the decoder. */
  #decodedFrameTimestamp(running: Running, arrivalMs: number): number | undefined {
    const queue = running.inFlight;
    while (queue.length > 1 && queue[0]!.pushedAtMs < arrivalMs - STALE_IN_FLIGHT_MS) queue.shift();
    return queue.shift()?.rtpTimestamp;
  }

  /** A frame this decoder produced that is no longer shown or queued: its buffer is filled again. */
  recycle(frame: I420Frame): void {
    const size = this.#running?.size;
    if (!size || frame.data.length !== i420ByteLength(size.width, size.height) || this.#pool.length >= POOL_LIMIT) return;
    this.#pool.push(frame.data);
  }

  /**
   * Each frame gets its own buffer (the engine holds several per user while they wait for their display time);
   * buffers come back through recycle(), so a steady stream allocates nothing, and ffmpeg's bytes are read into
   * them directly.
   */
  #readFrames(process: RtpDecoderProcess, running: Running, socketPath: string): void {
    const { size } = running;
    const length = i420ByteLength(size.width, size.height);
    const reader = new FrameSocketReader({
      path: socketPath,
      frameBytes: length,
      nextBuffer: () => {
        const spare = this.#pool.pop();
        return spare && spare.length === length ? spare : new Uint8Array(length);
      },
      alive: () => process.running && this.#running === running,
      onFrame: (done) => {
        if (this.#stopped || this.#running !== running) return;
        this.frames++;
        const arrival = this.options.now();
        const rtp = this.#decodedFrameTimestamp(running, arrival);
        const sent = rtp === undefined ? undefined : this.options.clock.wallTimeOf(rtp);
        const senderTime = sent === undefined ? arrival : Math.min(arrival, Math.max(arrival - MAX_TRANSIT_MS, sent));
        this.options.onFrame(i420FromBytes(done, size.width, size.height), senderTime);
      },
    });
    void process.exited.then(() => reader.close());
  }
}
