/**
 * One ffmpeg decoder fed with RTP over loopback UDP (a generated SDP, src/media/sdp.ts) that writes raw media to
 * a pipe (fd 3). Packets that arrive before ffmpeg has bound its port are held (bounded) and replayed, so the
 * first keyframe is not lost. Stopping never waits on the input: the decoder's output is not needed after stop.
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { type FfmpegExit, FfmpegProcess } from '../../ffmpeg.ts';
import { buildSdp, type RtpTrackDescription } from '../../sdp.ts';
import { allocateRtpPort, isPortBound, releaseRtpPort } from '../../udp-port.ts';

const PENDING_LIMIT = 2000;
const BIND_WAIT_MS = 10_000;

/**
 * Input arguments that make ffmpeg's RTP demuxer start fast and hold little: the sender is on loopback. Not
 * `-fflags nobuffer`: it throws away the packets read while probing, and the decoders rely on every packet they
 * are given coming out (video frames are matched to RTP timestamps in order, audio samples are counted).
 */
export function rtpInputArgs(sdpPath: string): string[] {
  return [
    '-loglevel', 'error',
    '-protocol_whitelist', 'file,udp,rtp',
    '-flags', 'low_delay',
    '-probesize', '32768',
    '-analyzeduration', '500000',
    '-reorder_queue_size', '50',
    '-i', sdpPath,
  ];
}

export class RtpDecoderProcess {
  readonly exited: Promise<FfmpegExit>;
  readonly #ffmpeg: FfmpegProcess;
  readonly #socket: Socket;
  readonly #port: number;
  #ready = false;
  #closed = false;
  #pending: Buffer[] = [];
  /** Packets pushed and not sent yet (batched: sent by `flush`). */
  #queue: Buffer[] = [];

  private constructor(
    ffmpeg: FfmpegProcess,
    socket: Socket,
    port: number,
    /** Packets wait in a queue for `flush` (docs/recording-mix.md, "Batches"); otherwise each is sent at once. */
    private readonly batched: boolean,
  ) {
    this.#ffmpeg = ffmpeg;
    this.#socket = socket;
    this.#port = port;
    this.exited = ffmpeg.exited;
  }

  /** The pipe on fd 3, for outputs written to `pipe:3` (started with `pipe: true`). */
  get output(): Readable {
    return this.#ffmpeg.pipe(3);
  }

  /**
   * Starts ffmpeg with `rtpInputArgs` then `outputArgs` (which write to pipe:3 when `pipe`, else wherever they
   * say). Resolves at once; packets pushed before ffmpeg listens are replayed when it does.
   */
  static async start(track: RtpTrackDescription, workDir: string, name: string, outputArgs: readonly string[], pipe = true, batched = false): Promise<RtpDecoderProcess> {
    mkdirSync(workDir, { recursive: true });
    const port = await allocateRtpPort();
    const sdpPath = join(workDir, `${name}.sdp`);
    writeFileSync(sdpPath, buildSdp(track, port));
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    socket.on('error', () => undefined); // ICMP unreachable after ffmpeg exits: its exit is reported instead
    // A connected socket sends without an address lookup per packet (measured: dgram's send was the largest item
    // of the Node side's profile with 17 users).
    await new Promise<void>((resolve) => socket.connect(port, '127.0.0.1', resolve));
    const ffmpeg = new FfmpegProcess([...rtpInputArgs(sdpPath), ...outputArgs], { extraPipes: pipe ? 1 : 0, cwd: workDir });
    const decoder = new RtpDecoderProcess(ffmpeg, socket, port, batched);
    void ffmpeg.exited.then(() => decoder.#close());
    void decoder.#waitForBind();
    return decoder;
  }

  get running(): boolean {
    return !this.#closed;
  }

  push(packet: Buffer): void {
    if (this.#closed) return;
    if (!this.#ready) {
      if (this.#pending.length < PENDING_LIMIT) this.#pending.push(packet);
      return;
    }
    if (this.batched) this.#queue.push(packet);
    else this.#socket.send(packet);
  }

  /** Sends the queued packets (batched). */
  flush(): void {
    if (this.#closed || this.#queue.length === 0) return;
    const queue = this.#queue;
    this.#queue = [];
    for (const p of queue) this.#socket.send(p);
  }

  async stop(): Promise<FfmpegExit> {
    this.#close();
    return this.#ffmpeg.stop(2000, 200);
  }

  async #waitForBind(): Promise<void> {
    const deadline = Date.now() + BIND_WAIT_MS;
    while (Date.now() < deadline && this.#ffmpeg.running && !this.#closed) {
      if (await isPortBound(this.#port)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    releaseRtpPort(this.#port);
    this.#ready = true;
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) this.push(p);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.#queue = [];
    this.#socket.close();
  }
}

/** A uid as part of a file name (uids are user input). */
export function safeName(uid: string): string {
  return uid.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/** One decoder child of a user, from the moment it is asked for: packets wait in `held` until it runs. */
export interface DecoderSlot {
  process: RtpDecoderProcess | undefined;
  readonly held: Buffer[];
}

/**
 * Starts the child for `slot`; once it runs, `onStarted` attaches its output and the held packets go in. A child
 * that is no longer wanted by then (the user left, or a newer child replaced it) is stopped at once.
 */
export function startDecoderSlot(
  slot: DecoderSlot,
  track: RtpTrackDescription,
  workDir: string,
  name: string,
  outputArgs: readonly string[],
  stillWanted: () => boolean,
  onStarted: (process: RtpDecoderProcess) => void,
  pipe = true,
  batched = false,
): void {
  void RtpDecoderProcess.start(track, workDir, name, outputArgs, pipe, batched).then((process) => {
    if (!stillWanted()) {
      void process.stop();
      return;
    }
    slot.process = process;
    onStarted(process);
    for (const p of slot.held.splice(0)) process.push(p);
  });
}
