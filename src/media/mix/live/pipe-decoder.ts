/**
 * One ffmpeg decoder fed through a pipe on its fd 3 (docs/recording-mix.md, "Audio decoding"): the pipeline
 * writes the coded media in a container ffmpeg reads as a stream (Ogg for Opus), a few packets per write, instead
 * of sending each RTP packet as a loopback datagram to an RTP demuxer: no UDP receive thread and hand-off per
 * packet, and a single-threaded decoder that blocks in one read per batch. Stopping never waits on the input.
 * (Video stays on RTP: fed IVF this way, ffmpeg 5.1 gave each decoded frame out only after the next one came in,
 * one frame of delay, for no measurable saving; see the doc.)
 */
import type { Readable, Writable } from 'node:stream';
import { type FfmpegExit, FfmpegProcess } from '../../ffmpeg.ts';

/**
 * Bytes written and not yet read by ffmpeg beyond which the child counts as stuck (default): it is stopped, and
 * the owner starts a new one, instead of queueing without bound in Node.
 */
const MAX_INPUT_BACKLOG = 8 * 1024 * 1024;

export interface PipeDecoderOptions {
  readonly cwd?: string;
  /** Extra pipes after fd 3 (fd 4, ...), for outputs written to `pipe:4` etc. */
  readonly outputs?: number;
  readonly maxBacklogBytes?: number;
}

/**
 * Input options for a container on fd 3: one decoder thread, and probing that stops at the first packet (the
 * container gives the codec and channels, the first decoded packet the sample format). Not `-fflags nobuffer`: it
 * throws away what was read while probing, and every sample given must come out (samples are counted).
 */
export function pipeInputArgs(format: 'ogg'): string[] {
  return [
    '-loglevel', 'error',
    '-threads', '1',
    '-probesize', '32',
    '-analyzeduration', '1',
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

  constructor(format: 'ogg', outputArgs: readonly string[], options: PipeDecoderOptions = {}) {
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
