/**
 * The mix's one encoder (docs/recording-mix.md, "Live pipeline"): an ffmpeg child that reads raw I420 canvases on
 * fd 3 and s16le 48 kHz PCM on fd 4, encodes H.264 (libx264 veryfast) and AAC per audioProfile, and cuts ≈15 s
 * MPEG-TS slices with a keyframe at each start, reporting each closed slice on fd 5 as the individual recorder's
 * track pipeline does (src/media/segment-list.ts). Timestamps come from frame and sample counts, not from the wall
 * clock: the frame clock already emits exactly fps frames per second.
 */
import { mkdirSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { MixAudioProfile } from '../audio-profile.ts';
import { MIX_SAMPLE_RATE } from '../audio-profile.ts';
import type { CanvasSize } from '../region.ts';
import { type FfmpegExit, FfmpegProcess } from '../../ffmpeg.ts';
import { type ClosedSlice, ClosedSliceReader, LineSplitter } from '../../segment-list.ts';
import { segmentArgs, SLICE_SECONDS, slicePolicy } from '../../slice-policy.ts';

export interface MixEncoderOptions {
  readonly workDir: string;
  readonly canvas: CanvasSize;
  readonly fps: number;
  readonly bitrateKbps: number;
  /** Null: no audio track (streamTypes 1). */
  readonly audio: MixAudioProfile | null;
  /** False: no video track (streamTypes 0). */
  readonly video: boolean;
  readonly sliceSeconds?: number;
  /** Wall-clock time of frame 0; slice start times are counted from it. */
  readonly originMs: number;
}

export interface MixEncoderEvents {
  onSlice(slice: ClosedSlice): void;
  /** ffmpeg ended on its own (not after finish()). */
  onFailure?(exit: FfmpegExit): void;
}

/** Keyframes every 2 s, and one forced at every slice mark so each slice starts with one. */
const GOP_SECONDS = 2;
const FINISH_WAIT_MS = 10_000;
/**
 * PCM goes to the encoder about five times a second rather than with every frame: each write wakes ffmpeg's input
 * thread, and the file does not need it sooner (docs/recording-mix.md, "Batches").
 */
const AUDIO_WRITE_FRAMES = MIX_SAMPLE_RATE / 5;
const FINISH_POLL_MS = 500;

export function mixEncoderArgs(o: MixEncoderOptions): string[] {
  const slice = o.sliceSeconds ?? SLICE_SECONDS;
  const { width, height } = o.canvas;
  const args = ['-loglevel', 'error'];
  if (o.video) {
    args.push('-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', `${width}x${height}`, '-framerate', String(o.fps), '-thread_queue_size', '64', '-i', 'pipe:3');
  }
  if (o.audio) {
    args.push('-f', 's16le', '-ar', String(MIX_SAMPLE_RATE), '-ac', String(o.audio.channels), '-thread_queue_size', '64', '-i', 'pipe:4');
  }
  let input = 0;
  if (o.video) {
    args.push(
      '-map', `${input++}:v`,
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
      '-b:v', `${o.bitrateKbps}k`, '-maxrate', `${o.bitrateKbps}k`, '-bufsize', `${2 * o.bitrateKbps}k`,
      '-g', String(Math.max(1, Math.round(GOP_SECONDS * o.fps))), '-sc_threshold', '0',
      '-force_key_frames', `expr:gte(t,n_forced*${slice})`,
    );
  }
  if (o.audio) {
    args.push('-map', `${input}:a`, '-c:a', 'aac', '-b:a', `${o.audio.bitrateKbps}k`, '-ar', String(MIX_SAMPLE_RATE), '-ac', String(o.audio.channels));
  }
  args.push(
    '-flush_packets', '1',
    // x264's B-frames give the first frames negative decode times. Shifting them (ffmpeg's default) delays every
    // timestamp by the B-frame delay (2 frames, 133 ms at 15 fps), so each slice's listed start, and its name, came
    // that much after the frame it starts with; MPEG-TS offsets its timestamps by 1.4 s anyway, so nothing is
    // negative in the files. Both the segment muxer and each slice's own muxer must leave them, or the first slice
    // is shifted and the second is not.
    '-avoid_negative_ts', 'disabled',
    ...segmentArgs(slicePolicy(o.video ? 'video' : 'audio', slice), 'ts'),
    '-segment_format', 'mpegts',
    // Each slice's own muxer flushes every packet: a crash loses what is in flight, not the open slice.
    '-segment_format_options', 'flush_packets=1:avoid_negative_ts=disabled',
    '-segment_list', 'pipe:5', '-segment_list_type', 'csv',
    'slice_%05d.ts',
  );
  return args;
}

function writableFd(ffmpeg: FfmpegProcess, fd: number): Writable {
  const stream = ffmpeg.child.stdio[fd];
  if (!stream || !('write' in stream)) throw new Error(`no writable pipe on fd ${fd}`);
  return stream as Writable;
}

export class MixEncoder {
  readonly #ffmpeg: FfmpegProcess;
  readonly #video: Writable | undefined;
  readonly #audio: Writable | undefined;
  readonly #slicesDone: Promise<void>;
  readonly #slices: ClosedSliceReader;
  #finishing = false;
  #audioQueue: Buffer[] = [];
  #audioQueuedFrames = 0;

  constructor(
    private readonly options: MixEncoderOptions,
    private readonly events: MixEncoderEvents,
  ) {
    mkdirSync(options.workDir, { recursive: true });
    this.#slices = new ClosedSliceReader(options.workDir, 'ts', () => options.originMs);
    this.#ffmpeg = new FfmpegProcess(mixEncoderArgs(options), { extraPipes: 3, cwd: options.workDir });
    this.#video = options.video ? writableFd(this.#ffmpeg, 3) : undefined;
    this.#audio = options.audio ? writableFd(this.#ffmpeg, 4) : undefined;
    for (const pipe of [this.#video, this.#audio]) pipe?.on('error', () => undefined); // EPIPE when ffmpeg dies: reported by exited
    const lines = new LineSplitter();
    const list = this.#ffmpeg.pipe(5);
    list.setEncoding('utf8');
    list.on('data', (d: string) => lines.push(d).forEach((l) => this.#segmentClosed(l)));
    this.#slicesDone = new Promise((resolve) => {
      list.on('end', () => {
        lines.flush().forEach((l) => this.#segmentClosed(l));
        resolve();
      });
      list.on('close', () => resolve());
    });
    void this.#ffmpeg.exited.then((exit) => {
      if (!this.#finishing) this.events.onFailure?.(exit);
    });
  }

  get running(): boolean {
    return this.#ffmpeg.running;
  }

  /** Bytes written but not yet taken by ffmpeg (a growing value means the encoder cannot keep up). */
  get backlogBytes(): number {
    return (this.#video?.writableLength ?? 0) + (this.#audio?.writableLength ?? 0);
  }

  /** One canvas; `done` runs when ffmpeg has taken the bytes (the buffer may then be reused). */
  writeVideo(data: Uint8Array, done?: () => void): void {
    if (!this.#video || this.#video.destroyed) return done?.();
    this.#video.write(data, () => done?.());
  }

  /** One frame's PCM (the caller does not reuse the array); written with the next few. */
  writeAudio(samples: Int16Array): void {
    if (!this.#audio || this.#audio.destroyed || samples.length === 0) return;
    this.#audioQueue.push(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    this.#audioQueuedFrames += samples.length / (this.options.audio?.channels ?? 1);
    if (this.#audioQueuedFrames >= AUDIO_WRITE_FRAMES) this.#writeQueuedAudio();
  }

  #writeQueuedAudio(): void {
    const queue = this.#audioQueue;
    this.#audioQueue = [];
    this.#audioQueuedFrames = 0;
    if (queue.length === 0 || !this.#audio || this.#audio.destroyed) return;
    this.#audio.write(queue.length === 1 ? queue[0]! : Buffer.concat(queue));
  }

  /**
   * Ends the inputs: ffmpeg encodes what it has, closes the last slice and exits. An encoder that fell behind (a
   * loaded machine) is given the time it needs while it still takes input; one that takes nothing and does not exit
   * for FINISH_WAIT_MS is stopped, so a hung ffmpeg cannot hold up a stop or a hold.
   */
  async finish(): Promise<FfmpegExit> {
    this.#finishing = true;
    this.#writeQueuedAudio();
    this.#video?.end();
    this.#audio?.end();
    let backlog = this.backlogBytes;
    let stalledMs = 0;
    const watch = setInterval(() => {
      const now = this.backlogBytes;
      stalledMs = now < backlog ? 0 : stalledMs + FINISH_POLL_MS;
      backlog = now;
      if (stalledMs >= FINISH_WAIT_MS) {
        clearInterval(watch);
        void this.#ffmpeg.stop(2000);
      }
    }, FINISH_POLL_MS);
    try {
      const exit = await this.#ffmpeg.exited;
      await this.#slicesDone;
      return exit;
    } finally {
      clearInterval(watch);
    }
  }

  #segmentClosed(line: string): void {
    const slice = this.#slices.read(line);
    if (slice) this.events.onSlice(slice);
  }
}
