/**
 * How a TrackPipeline's packets reach its ffmpeg: RTP over loopback UDP with a generated SDP (VP8 and Opus), or,
 * for H.264, whole access units with their RTP timestamps in IVF on ffmpeg's stdin. ffmpeg's H.264 RTP input
 * stamps every frame after the first with the previous frame's timestamp (one frame of A/V offset for the whole
 * stream, docs/recording-individual.md "A/V sync"); its IVF reader keeps the timestamps it is given.
 */
import { createSocket, type Socket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { H264AccessUnitAssembler, isRtcp } from '../rtp-payload/index.ts';
import type { FfmpegExit, FfmpegProcess } from './ffmpeg.ts';
import { ivfFileHeader, ivfFrameHeader, RtpTimestampUnwrapper } from './ivf.ts';
import { buildSdp, type RtpTrackDescription } from './sdp.ts';
import { ffmpegSaysInputTimedOut, INPUT_SDP, INPUT_TIMEOUT_MS } from './slicer-state.ts';
import { allocateRtpPort, isPortBound, releaseRtpPort } from './udp-port.ts';

export interface SlicerInputPort {
  /** ffmpeg's input options, `-i` included. */
  readonly args: readonly string[];
  /** ffmpeg reads its input on stdin (else stdin is closed). */
  readonly stdin: boolean;
  /** Before ffmpeg is launched: sockets and files. */
  open(): Promise<void>;
  /** ffmpeg was spawned: resolves when it takes packets (or it ended, or the wait gave up). */
  ready(ff: FfmpegProcess): Promise<void>;
  /** One RTP packet, in order (the repair's output or the network's). */
  send(packet: Buffer): void;
  /** Ends ffmpeg's input as an end of stream would (it then finishes its outputs); false: nothing to end. */
  end(ff: FfmpegProcess): boolean;
  /** Whether ffmpeg's input ended for want of packets (see slicerEnd). */
  timedOut(exit: FfmpegExit): boolean;
  /** The port, if the input holds one that ffmpeg has not bound yet, is given back. */
  releasePort(): void;
  close(): void;
}

export interface SlicerInputContext {
  readonly workDir: string;
  /** Real time, for the piped input's idle end. */
  readonly now: () => number;
  /** The RTP timestamp that becomes the files' time 0 (the first one ffmpeg gets), once. */
  readonly onOrigin: (ssrc: number, timestamp: number) => void;
}

/** Choose the input for a track: H.264 through IVF, everything else as RTP. */
export function slicerInputFor(track: RtpTrackDescription, ctx: SlicerInputContext): SlicerInputPort {
  return track.codec === 'H264' ? new H264IvfInput(track, ctx) : new RtpUdpInput(track, ctx);
}

const BIND_WAIT_MS = 10_000;

/**
 * A compound RTCP packet, an empty receiver report then a BYE (RFC 3550 §6.6) for one source; ffmpeg needs at
 * least an RTP header's length to look at a packet at all.
 */
export function rtcpBye(ssrc: number): Buffer {
  const b = Buffer.alloc(16);
  b[0] = 0x80;
  b[1] = 201;
  b.writeUInt16BE(1, 2);
  b.writeUInt32BE(ssrc >>> 0, 4);
  b[8] = 0x81;
  b[9] = 203;
  b.writeUInt16BE(1, 10);
  b.writeUInt32BE(ssrc >>> 0, 12);
  return b;
}

/** RTP to ffmpeg's own RTP reader on a loopback port it binds, described by an SDP file. */
class RtpUdpInput implements SlicerInputPort {
  readonly stdin = false;
  #socket: Socket | undefined;
  #port = 0;
  #ssrc: number | undefined;
  readonly #sdpPath: string;

  constructor(
    private readonly track: RtpTrackDescription,
    private readonly ctx: SlicerInputContext,
  ) {
    this.#sdpPath = join(ctx.workDir, INPUT_SDP);
  }

  get args(): readonly string[] {
    return ['-protocol_whitelist', 'file,udp,rtp', '-i', this.#sdpPath];
  }

  async open(): Promise<void> {
    this.#port = await allocateRtpPort();
    writeFileSync(this.#sdpPath, buildSdp(this.track, this.#port));
    this.#socket = createSocket('udp4');
    // A connected socket sends without an address per packet (cheaper per send: docs/recording-individual.md,
    // "Where the cost goes"); it also hears ICMP refusals once ffmpeg is gone, which mean nothing here.
    this.#socket.on('error', () => {});
    await new Promise<void>((r) => this.#socket!.connect(this.#port, '127.0.0.1', r));
  }

  async ready(ff: FfmpegProcess): Promise<void> {
    const deadline = Date.now() + BIND_WAIT_MS;
    while (Date.now() < deadline && ff.running) {
      if (await isPortBound(this.#port)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    releaseRtpPort(this.#port);
  }

  send(packet: Buffer): void {
    if (packet.length >= 12 && !isRtcp(packet)) {
      if (this.#ssrc === undefined) this.ctx.onOrigin(packet.readUInt32BE(8), packet.readUInt32BE(4));
      this.#ssrc = packet.readUInt32BE(8);
    }
    this.#socket?.send(packet);
  }

  end(): boolean {
    if (this.#ssrc === undefined) return false;
    // ffmpeg reads RTCP on the RTP port too (RFC 5761 multiplexing), so the BYE needs no second socket.
    this.#socket?.send(rtcpBye(this.#ssrc));
    return true;
  }

  timedOut(exit: FfmpegExit): boolean {
    return ffmpegSaysInputTimedOut(exit, INPUT_SDP);
  }

  releasePort(): void {
    releaseRtpPort(this.#port);
  }

  close(): void {
    this.#socket?.close();
  }
}

/** What may wait in the pipe to ffmpeg before frames are dropped (seconds of video at any sane bitrate). */
const MAX_QUEUED_BYTES = 8 * 2 ** 20;
/** How often the piped input looks for INPUT_TIMEOUT_MS without a packet (ffmpeg's RTP reader polls in 100 ms). */
const IDLE_CHECK_MS = 500;

/**
 * H.264 access units in IVF on ffmpeg's stdin, each with its RTP timestamp (relative to the first written). A pipe
 * has no timeout of its own, so the input ends it after INPUT_TIMEOUT_MS without a packet, as ffmpeg's RTP reader
 * does with its port: the same quiet-input end for both.
 */
class H264IvfInput implements SlicerInputPort {
  readonly stdin = true;
  readonly args = ['-f', 'ivf', '-i', 'pipe:0'];
  readonly #units: H264AccessUnitAssembler;
  readonly #clock = new RtpTimestampUnwrapper();
  #stdin: Writable | undefined;
  #started = false;
  #lastWritten = -1;
  #lastPacketMs: number;
  #idleTimer: NodeJS.Timeout | undefined;
  #idleClosed = false;
  #skipToKeyframe = false;

  #ssrc = 0;

  constructor(
    track: RtpTrackDescription,
    private readonly ctx: SlicerInputContext,
  ) {
    this.#units = new H264AccessUnitAssembler(/sprop-parameter-sets=([^;]+)/.exec(track.fmtp ?? '')?.[1]);
    this.#lastPacketMs = ctx.now();
  }

  async open(): Promise<void> {}

  async ready(ff: FfmpegProcess): Promise<void> {
    this.#stdin = ff.stdin();
    // An EPIPE once ffmpeg is gone means nothing here: its exit is reported on its own.
    this.#stdin.on('error', () => {});
    this.#lastPacketMs = this.ctx.now();
    this.#idleTimer = setInterval(() => {
      if (this.ctx.now() - this.#lastPacketMs < INPUT_TIMEOUT_MS) return;
      this.#idleClosed = true;
      this.#endStdin();
    }, IDLE_CHECK_MS);
    this.#idleTimer.unref();
  }

  send(packet: Buffer): void {
    this.#lastPacketMs = this.ctx.now();
    if (packet.length < 12 || isRtcp(packet)) return;
    this.#ssrc = packet.readUInt32BE(8);
    for (const unit of this.#units.push(packet)) this.#write(unit.annexB, unit.timestamp, unit.key);
  }

  #write(annexB: Buffer, rtpTimestamp: number, key: boolean): void {
    const stdin = this.#stdin;
    if (!stdin || stdin.writableEnded) return;
    // The files start at a decodable frame, as ffmpeg's RTP reader's output did after its first keyframe.
    if (!this.#started && !key) return;
    if (!this.#started) {
      stdin.write(ivfFileHeader('H264'));
      this.#started = true;
      this.ctx.onOrigin(this.#ssrc, rtpTimestamp);
    }
    // ffmpeg not keeping up (a stalled child): drop frames up to the next keyframe rather than queue them without
    // bound in this process, as a full UDP socket would drop packets.
    if (stdin.writableLength > MAX_QUEUED_BYTES) this.#skipToKeyframe = true;
    if (this.#skipToKeyframe) {
      if (!key || stdin.writableLength > MAX_QUEUED_BYTES) return;
      this.#skipToKeyframe = false;
    }
    // Units come in order; a timestamp that goes back (a publisher's restart) must not make ffmpeg's times do so.
    const t = Math.max(this.#clock.next(rtpTimestamp), this.#lastWritten + 1);
    this.#lastWritten = t;
    stdin.write(Buffer.concat([ivfFrameHeader(annexB.length, t), annexB]));
  }

  end(): boolean {
    if (!this.#stdin) return false;
    for (const unit of this.#units.flush()) this.#write(unit.annexB, unit.timestamp, unit.key);
    this.#endStdin();
    return true;
  }

  #endStdin(): void {
    clearInterval(this.#idleTimer);
    if (this.#stdin && !this.#stdin.writableEnded) this.#stdin.end();
  }

  timedOut(): boolean {
    return this.#idleClosed;
  }

  releasePort(): void {}

  close(): void {
    clearInterval(this.#idleTimer);
  }
}
