/**
 * One user's video → I420 frames (docs/recording-mix.md, "Live pipeline"). An ffmpeg child decodes the RTP
 * stream and writes rawvideo yuv420p to a pipe at a fixed size: the source size read from the keyframe
 * (VP8 header or H.264 SPS), scaled down to fit the bound (the canvas) when larger. A keyframe that announces a
 * new size starts a new decoder from that keyframe on; the old one is dropped, the last frame stays on screen
 * meanwhile. Only the latest frame is kept (two buffers swapped), so a slow reader never queues frames.
 */
import { type I420Frame, i420ByteLength, i420FromBytes } from '../i420.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import { RtpDecoderProcess, safeName } from './rtp-decoder.ts';
import { readRtpHeader } from './rtp-header.ts';
import { decodeSize, keyframeSize, type VideoSize } from './video-size.ts';

export interface UserVideoDecoderOptions {
  readonly uid: string;
  readonly track: RtpTrackDescription;
  readonly workDir: string;
  /** The largest frame worth decoding: the canvas. */
  readonly bound: VideoSize;
  readonly now: () => number;
  readonly onFrame: (frame: I420Frame, atMs: number) => void;
  /** No keyframe to start from yet: ask the sender for one (RTCP PLI). Called at most once a second. */
  readonly onKeyframeNeeded?: () => void;
}

const KEYFRAME_REQUEST_INTERVAL_MS = 1000;

interface Running {
  /** Undefined while the child is starting; packets wait in `held` meanwhile. */
  process: RtpDecoderProcess | undefined;
  readonly held: Buffer[];
  readonly source: VideoSize;
  readonly size: VideoSize;
}

const HELD_LIMIT = 2000;

export class UserVideoDecoder {
  #running: Running | undefined;
  #generation = 0;
  #stopped = false;
  #lastKeyframeRequestMs = -Infinity;
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
    const source = keyframeSize(this.options.track.codec, packet.subarray(header.payloadOffset, header.payloadEnd));
    const running = this.#running;
    if (source && (!running || running.source.width !== source.width || running.source.height !== source.height)) {
      this.#restart(source, packet);
      return;
    }
    if (!running) this.#askForKeyframe();
    else if (running.process) running.process.push(packet);
    else if (running.held.length < HELD_LIMIT) running.held.push(packet);
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
    const running: Running = { process: undefined, held: [keyframePacket], source, size };
    this.#running = running;
    const args = ['-an', '-threads', '1', '-vf', `scale=${size.width}:${size.height}:flags=bilinear`, '-pix_fmt', 'yuv420p', '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:3'];
    void RtpDecoderProcess.start(this.options.track, this.options.workDir, `video-${safeName(this.options.uid)}-${generation}`, args).then((process) => {
      if (this.#stopped || this.#running !== running) {
        void process.stop();
        return;
      }
      running.process = process;
      this.#readFrames(process, size);
      for (const p of running.held.splice(0)) process.push(p);
    });
  }

  #readFrames(process: RtpDecoderProcess, size: VideoSize): void {
    const length = i420ByteLength(size.width, size.height);
    let filling = new Uint8Array(length);
    let spare = new Uint8Array(length);
    let filled = 0;
    process.output.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length) {
        const n = Math.min(length - filled, chunk.length - at);
        filling.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled < length) break;
        filled = 0;
        const done = filling;
        filling = spare;
        spare = done;
        if (this.#stopped || this.#running?.process !== process) continue;
        this.frames++;
        this.options.onFrame(i420FromBytes(done, size.width, size.height), this.options.now());
      }
    });
  }
}
