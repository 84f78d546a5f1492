/**
 * One received track of one user → closed slices on local disk, without transcoding video.
 * Video RTP goes to ffmpeg over loopback UDP (a generated SDP); Opus goes as an Ogg stream on ffmpeg's stdin
 * (no RTP demuxing or UDP polling in ffmpeg: half the audio slicer's CPU, docs/recording-individual.md).
 * ffmpeg's segment muxer cuts slices per the slice policy and reports each closed slice on fd 3; optional JPEG
 * snapshots come out of the same process. Packets that arrive before ffmpeg can take them are held (bounded) and
 * then replayed, so the first keyframe is not lost.
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdirSync, readdirSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import type { Writable } from 'node:stream';
import { join } from 'node:path';
import { aacArgs, aacChannels } from './aac-output.ts';
import { FfmpegProcess, type FfmpegExit } from './ffmpeg.ts';
import { OggOpusWriter } from './ogg-opus.ts';
import type { TrackKind } from './naming.ts';
import { buildSdp, isVideoCodec, type RtpTrackDescription } from './sdp.ts';
import { type ClosedSlice, ClosedSliceReader, LineSplitter } from './segment-list.ts';
import { segmentArgs, slicePolicy } from './slice-policy.ts';
import { allocateRtpPort, isPortBound, releaseRtpPort } from './udp-port.ts';

/** Audio output: `transcode` → AAC in MPEG-TS (default/standard stream modes); `copy` → Opus in MPEG-TS (original). */
export type AudioOutput = 'transcode' | 'copy';

export interface TrackPipelineOptions {
  readonly track: RtpTrackDescription;
  readonly workDir: string;
  readonly audioOutput?: AudioOutput;
  /** Seconds between JPEG snapshots (video only); none when absent. */
  readonly snapshotIntervalSec?: number | undefined;
  readonly sliceSeconds?: number;
  /** Wall-clock source for media timestamps (not a lifecycle timer). */
  readonly now?: () => number;
}

export type { ClosedSlice } from './segment-list.ts';

export interface Snapshot {
  readonly localPath: string;
  readonly atMs: number;
}

export interface TrackPipelineEvents {
  onSlice(slice: ClosedSlice): void;
  onSnapshot?(snap: Snapshot): void;
  /** ffmpeg ended on its own (not after stop()): the stream is broken. */
  onFailure?(exit: FfmpegExit): void;
}

const PENDING_LIMIT = 2000;
const BYE_WAIT_MS = 4000;

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
const BIND_WAIT_MS = 10_000;
/** Bytes queued for a slicer's stdin beyond which packets are dropped (ffmpeg stalled: about 1 min of Opus). */
const STDIN_LIMIT = 512 * 1024;

/** How packets reach one slicer: its ffmpeg input arguments and the sending side. */
interface SlicerInput {
  readonly stdin: boolean;
  /** Before the spawn. */
  prepare(): Promise<void>;
  args(): string[];
  /** After the spawn; resolves when ffmpeg can take packets. */
  open(ff: FfmpegProcess): Promise<void>;
  send(packet: Buffer): void;
  /** Ends the input: ffmpeg writes its last slice and exits. */
  end(ssrc: number | undefined): void;
  close(): void;
}

/** RTP over a loopback UDP port that ffmpeg reads through a generated SDP. */
class UdpRtpInput implements SlicerInput {
  readonly stdin = false;
  #socket: Socket | undefined;
  #port = 0;
  #released = false;

  constructor(
    private readonly track: RtpTrackDescription,
    private readonly workDir: string,
  ) {}

  async prepare(): Promise<void> {
    this.#port = await allocateRtpPort();
    writeFileSync(this.#sdpPath(), buildSdp(this.track, this.#port));
    this.#socket = createSocket('udp4');
    // A connected socket sends without an address per packet (cheaper per send); it also hears ICMP refusals
    // once ffmpeg is gone, which mean nothing here.
    this.#socket.on('error', () => {});
    await new Promise<void>((r) => this.#socket!.connect(this.#port, '127.0.0.1', r));
  }

  #sdpPath(): string {
    return join(this.workDir, 'input.sdp');
  }

  args(): string[] {
    return ['-protocol_whitelist', 'file,udp,rtp', '-i', this.#sdpPath()];
  }

  async open(ff: FfmpegProcess): Promise<void> {
    const deadline = Date.now() + BIND_WAIT_MS;
    while (Date.now() < deadline && ff.running) {
      if (await isPortBound(this.#port)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    this.#release();
  }

  send(packet: Buffer): void {
    this.#socket?.send(packet);
  }

  end(ssrc: number | undefined): void {
    // ffmpeg reads RTCP on the RTP port too, so one BYE on it ends the input like an end of file.
    if (ssrc !== undefined) this.#socket?.send(rtcpBye(ssrc));
  }

  #release(): void {
    if (this.#released || this.#port === 0) return;
    this.#released = true;
    releaseRtpPort(this.#port);
  }

  close(): void {
    this.#release();
    this.#socket?.close();
    this.#socket = undefined;
  }
}

/** Opus as an Ogg stream on ffmpeg's stdin (OggOpusWriter); the end of the pipe is the end of the stream. */
class OggOpusInput implements SlicerInput {
  readonly stdin = true;
  readonly #ogg = new OggOpusWriter();
  #pipe: Writable | undefined;

  constructor(private readonly channels: () => 1 | 2) {}

  async prepare(): Promise<void> {}

  args(): string[] {
    return ['-f', 'ogg', '-i', 'pipe:0'];
  }

  async open(ff: FfmpegProcess): Promise<void> {
    this.#pipe = ff.input();
    this.#pipe.write(this.#ogg.header(this.channels()));
  }

  send(packet: Buffer): void {
    const page = this.#ogg.packet(packet);
    if (page && this.#pipe && this.#pipe.writableLength < STDIN_LIMIT) this.#pipe.write(page);
  }

  end(): void {
    const last = this.#ogg.flush();
    if (last) this.#pipe?.write(last);
    this.#pipe?.end();
  }

  close(): void {
    this.#pipe?.destroy();
  }
}

export class TrackPipeline {
  readonly kind: TrackKind;
  readonly container: 'ts' | 'webm';
  private ffmpeg: FfmpegProcess | undefined;
  private readonly input: SlicerInput;
  private ready = false;
  private pending: Buffer[] = [];
  private firstPacketMs: number | undefined;
  private readonly slices: ClosedSliceReader;
  private watcher: FSWatcher | undefined;
  private snapshotsSeen = new Set<string>();
  private stopped = false;
  private closed = false;
  private ssrc: number | undefined;
  private readonly now: () => number;
  /** start() left the spawn to the first packet (see start). */
  private launchOnPacket = false;
  packets = 0;

  constructor(
    private readonly opts: TrackPipelineOptions,
    private readonly events: TrackPipelineEvents,
  ) {
    this.kind = isVideoCodec(opts.track.codec) ? 'video' : 'audio';
    this.container = opts.track.codec === 'VP8' ? 'webm' : 'ts';
    this.now = opts.now ?? Date.now;
    this.slices = new ClosedSliceReader(opts.workDir, this.container, () => this.firstPacketMs ?? this.now());
    // The declared channels of copied Opus stay 2, as the RTP description (opus/48000/2) always said.
    this.input = opts.track.codec === 'opus' ? new OggOpusInput(() => (this.transcodes() ? this.aacChannels() : 2)) : new UdpRtpInput(opts.track, opts.workDir);
  }

  private aacChannels(): 1 | 2 {
    return aacChannels(this.opts.track.fmtp, this.pending);
  }

  async start(): Promise<void> {
    mkdirSync(this.opts.workDir, { recursive: true });
    await this.input.prepare();
    if (this.stopped) {
      this.input.close();
      return;
    }
    // The AAC encoder's channel count is read from the first packet, so a transcoding slicer starts with it.
    if (this.transcodes() && this.packets === 0) {
      this.launchOnPacket = true;
      return;
    }
    await this.launch();
  }

  private async launch(): Promise<void> {
    const snap = this.kind === 'video' && this.opts.snapshotIntervalSec ? this.opts.snapshotIntervalSec : undefined;
    if (snap) this.watchSnapshots(snap);
    this.ffmpeg = new FfmpegProcess(this.args(snap), { extraPipes: 1, cwd: this.opts.workDir, stdin: this.input.stdin });
    const lines = new LineSplitter();
    const fd3 = this.ffmpeg.pipe(3);
    fd3.setEncoding('utf8');
    fd3.on('data', (d: string) => lines.push(d).forEach((l) => this.segmentClosed(l)));
    fd3.on('end', () => lines.flush().forEach((l) => this.segmentClosed(l)));
    void this.ffmpeg.exited.then((exit) => {
      if (this.stopped) return;
      // ffmpeg died on its own: release the input and watcher now, nobody may call stop().
      this.stopped = true;
      this.closed = true;
      this.watcher?.close();
      this.input.close();
      this.events.onFailure?.(exit);
    });
    await this.input.open(this.ffmpeg);
    this.ready = true;
    for (const p of this.pending) this.input.send(p);
    this.pending = [];
  }

  private transcodes(): boolean {
    return this.kind === 'audio' && this.opts.audioOutput !== 'copy';
  }

  private args(snapshotSec: number | undefined): string[] {
    const policy = slicePolicy(this.kind, this.opts.sliceSeconds);
    const codec =
      this.kind === 'video'
        ? ['-map', '0:v', '-c:v', 'copy']
        : this.transcodes()
          ? ['-map', '0:a', ...aacArgs(this.aacChannels())]
          : ['-map', '0:a', '-c:a', 'copy'];
    const args = [
      '-loglevel', 'error',
      ...this.input.args(),
      ...codec,
      // Every packet reaches the disk at once: a crash loses at most what is in flight, not a 32 KiB buffer.
      '-flush_packets', '1',
      ...segmentArgs(policy, this.container),
      '-segment_format_options', 'flush_packets=1',
      '-segment_format', this.container === 'webm' ? 'webm' : 'mpegts',
      '-segment_list', 'pipe:3', '-segment_list_type', 'csv',
      `slice_%05d.${this.container}`,
    ];
    if (snapshotSec) {
      args.push('-map', '0:v', '-vf', `fps=1/${snapshotSec}`, '-q:v', '3', '-atomic_writing', '1', '-f', 'image2', 'snap_%05d.jpg');
    }
    return args;
  }

  /** One RTP packet as received (header + payload). */
  push(packet: Buffer): void {
    if (this.closed) return;
    this.firstPacketMs ??= this.now();
    if (packet.length >= 12) this.ssrc = packet.readUInt32BE(8);
    this.packets++;
    if (!this.ready) {
      if (this.pending.length < PENDING_LIMIT) this.pending.push(packet);
      if (this.launchOnPacket) {
        this.launchOnPacket = false;
        void this.launch().catch((e: Error) => this.events.onFailure?.({ code: null, signal: null, clean: false, stderrTail: e.message }));
      }
      return;
    }
    this.input.send(packet);
  }

  private async endOfStream(): Promise<FfmpegExit | undefined> {
    const ff = this.ffmpeg;
    if (!ff) return undefined;
    if (this.ready && ff.running) {
      this.input.end(this.ssrc);
      const exited = await Promise.race([ff.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), BYE_WAIT_MS))]);
      if (exited) return ff.exited;
    }
    return ff.stop();
  }

  private segmentClosed(line: string): void {
    const slice = this.slices.read(line);
    if (slice) this.events.onSlice(slice);
  }

  private watchSnapshots(intervalSec: number): void {
    this.watcher = watch(this.opts.workDir, (_e, file) => {
      if (file) this.snapshotMaybe(String(file), intervalSec);
    });
  }

  private snapshotMaybe(file: string, intervalSec: number): void {
    const m = /^snap_(\d{5})\.jpg$/.exec(file);
    if (!m || this.snapshotsSeen.has(file)) return;
    const localPath = join(this.opts.workDir, file);
    try {
      if (statSync(localPath).size === 0) return;
    } catch {
      return;
    }
    this.snapshotsSeen.add(file);
    // The fps filter emits frame k for stream time (k-1)·interval.
    const atMs = Math.round((this.firstPacketMs ?? this.now()) + (Number(m[1]) - 1) * intervalSec * 1000);
    this.events.onSnapshot?.(Object.freeze({ localPath, atMs }));
  }

  /** Finishes the current slice, reports it, and releases the port. */
  async stop(): Promise<FfmpegExit | undefined> {
    if (this.stopped) return undefined;
    this.stopped = true;
    // A transcoding slicer that never got a packet never started: there is nothing to end.
    this.launchOnPacket = false;
    // Ending the input (an RTCP BYE for RTP, which ffmpeg treats as an end of file; the end of the pipe for Ogg)
    // flushes the last slice and snapshot cleanly even when the sender has already gone quiet. Signals are the
    // fallback (see FfmpegProcess.stop).
    const exit = await this.endOfStream();
    this.closed = true;
    this.watcher?.close();
    const interval = this.opts.snapshotIntervalSec;
    if (interval && this.kind === 'video') {
      for (const f of readdirSync(this.opts.workDir).sort()) this.snapshotMaybe(f, interval);
    }
    this.input.close();
    return exit;
  }
}
