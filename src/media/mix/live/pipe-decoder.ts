/**
 * One ffmpeg decoder fed through a pipe on its fd 3 (docs/recording-mix.md, "Video decoding", "Audio decoding"):
 * the pipeline writes whole coded frames in a container ffmpeg reads as a stream (IVF for video, Ogg for Opus), one
 * write per frame, instead of sending each RTP packet as a loopback datagram to an RTP demuxer. That saves a
 * datagram per packet on the Node side and, in ffmpeg, the UDP receive thread, its hand-off to the demuxer and the
 * RTP depacketizer; a single-threaded decoder blocks in one read per frame. Stopping never waits on the input.
 */
import type { Readable, Writable } from 'node:stream';
import { type FfmpegExit, FfmpegProcess } from '../../ffmpeg.ts';

/**
 * Bytes written and not yet read by ffmpeg beyond which the child counts as stuck (default): it is stopped, and
 * the owner starts a new one (at the next keyframe for video), instead of queueing without bound in Node.
 */
const MAX_INPUT_BACKLOG = 8 * 1024 * 1024;

export interface PipeDecoderOptions {
  readonly cwd?: string;
  /** Extra pipes after fd 3 (fd 4, ...), for outputs written to `pipe:4` etc. */
  readonly outputs?: number;
  readonly maxBacklogBytes?: number;
}

/**
 * Input options for a container on fd 3. One decoder thread: the pictures are small, frame threads would add a
 * frame of delay per thread and a hand-off between threads per frame. Stream info is complete after the first
 * frame (the container gives the codec and size, the keyframe the pixel format), so probing stops there:
 * `-fpsprobesize 0` keeps ffmpeg from reading frames to guess a frame rate (the output passes frames through).
 * Not `-fflags nobuffer`: it throws away what was read while probing, and every frame given must come out (frames
 * are matched to their timestamps in order, audio samples are counted).
 */
export function pipeInputArgs(format: 'ivf' | 'ogg'): string[] {
  return [
    '-loglevel', 'error',
    '-threads', '1',
    '-flags', 'low_delay',
    '-probesize', '32',
    '-analyzeduration', '1',
    '-fpsprobesize', '0',
    '-f', format,
    '-i', 'pipe:3',
  ];
}

export class PipeDecoderProcess {
  readonly exited: Promise<FfmpegExit>;
  readonly #ffmpeg: FfmpegProcess;
  readonly #input: Writable;
  readonly #maxBacklog: number;
  #closed = false;

  constructor(format: 'ivf' | 'ogg', outputArgs: readonly string[], options: PipeDecoderOptions = {}) {
    this.#maxBacklog = options.maxBacklogBytes ?? MAX_INPUT_BACKLOG;
    this.#ffmpeg = new FfmpegProcess([...pipeInputArgs(format), ...outputArgs], {
      extraPipes: 1 + (options.outputs ?? 0),
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
    const input = this.#ffmpeg.child.stdio[3];
    if (!input || !('write' in input)) throw new Error('no writable pipe on fd 3');
    this.#input = input as Writable;
    this.#input.on('error', () => undefined); // EPIPE once ffmpeg has gone: its exit is reported instead
    this.exited = this.#ffmpeg.exited;
    void this.exited.then(() => this.#close());
  }

  /** An output pipe (fd 4, ...). */
  output(fd: number): Readable {
    return this.#ffmpeg.pipe(fd);
  }

  get running(): boolean {
    return !this.#closed;
  }

  write(bytes: Uint8Array): void {
    if (this.#closed) return;
    if (this.#input.writableLength > this.#maxBacklog) {
      void this.stop();
      return;
    }
    this.#input.write(bytes);
  }

  async stop(): Promise<FfmpegExit> {
    this.#close();
    return this.#ffmpeg.stop(2000, 200);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.destroy();
  }
}

/** A uid as part of a file name (uids are user input). */
export function safeName(uid: string): string {
  return uid.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}
