/**
 * One received track of one user → closed slices on local disk, without transcoding video.
 * Packets reach ffmpeg through a slicer input (slicer-inputs.ts: RTP over loopback UDP with a generated SDP, or
 * H.264 frames in IVF on its stdin); ffmpeg's segment muxer cuts slices per the slice policy and reports each
 * closed slice on fd 3; optional JPEG snapshots come out of the same process. Packets that arrive before ffmpeg
 * takes them (its port bound) are held (bounded) and then replayed, so the first keyframe is not lost.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { aacArgs, aacChannels } from './aac-output.ts';
import { RECORDING_JITTER_BOUNDS, RepairedFeed, type FeedStats, type LossMeter } from './jitter/index.ts';
import { FfmpegProcess, type FfmpegExit } from './ffmpeg.ts';
import { systemClock } from '../clock/index.ts';
import { h264Nals, NAL, readRtpHeader, startsKeyframe } from '../rtp-payload/index.ts';
import type { TrackKind } from './naming.ts';
import { ArrivalAnchor } from './arrival-anchor.ts';
import { isVideoCodec, type RtpTrackDescription } from './sdp.ts';
import { type ClosedSlice, ClosedSliceReader, LineSplitter } from './segment-list.ts';
import { INITIAL_SLICER_STATE, isBound, isStoppedOrEnded, stepSlicer, type SlicerEffect, type SlicerInput, type SlicerState } from './slicer-state.ts';
import { slicerInputFor, type SlicerInputPort } from './slicer-inputs.ts';
import { segmentArgs, slicePolicy } from './slice-policy.ts';

/** Audio output: `transcode` → AAC in MPEG-TS (default/standard stream modes); `copy` → Opus in MPEG-TS (original). */
export type AudioOutput = 'transcode' | 'copy';

export interface TrackPipelineOptions {
  readonly track: RtpTrackDescription;
  readonly workDir: string;
  readonly audioOutput?: AudioOutput;
  /** Seconds between JPEG snapshots (video only); none when absent. */
  readonly snapshotIntervalSec?: number | undefined;
  readonly sliceSeconds?: number;
  /**
   * Wall-clock source for media timestamps and for how long the input has been without a packet when ffmpeg ends
   * on its own (a measurement, not a lifecycle timer).
   */
  readonly now?: () => number;
  /** Fault injection (tests): each ffmpeg child as it is spawned, e.g. to kill it as a crash would. */
  readonly onLaunched?: (child: ChildProcess) => void;
  /**
   * Loss repair in front of ffmpeg (src/media/jitter: jitter buffer, keyframe wait, Opus concealment); absent: packets
   * go to ffmpeg as they come.
   */
  readonly repair?: PipelineRepair | undefined;
}

export interface PipelineRepair {
  /** Asks the publisher for a keyframe (video, after a loss the buffer could not repair; rate-limited here). */
  readonly requestKeyframe?: (() => void) | undefined;
  /** Process totals for /metrics. */
  readonly meter?: LossMeter | undefined;
}

export type { ClosedSlice } from './segment-list.ts';
export { ffmpegSaysInputTimedOut, INPUT_TIMEOUT_MS, slicerEnd, type SlicerEnd } from './slicer-state.ts';
export { rtcpBye } from './slicer-inputs.ts';

export interface Snapshot {
  readonly localPath: string;
  readonly atMs: number;
}

export interface TrackPipelineEvents {
  onSlice(slice: ClosedSlice): void;
  onSnapshot?(snap: Snapshot): void;
  /** ffmpeg ended on its own (not after stop()) and not for a quiet input: the stream is broken. */
  onFailure?(exit: FfmpegExit): void;
  /**
   * ffmpeg ended its input after INPUT_TIMEOUT_MS without a packet (publisher silent, muted, its subscription
   * being replaced) and closed its last slice cleanly: the stream is over, nothing broke. A later packet needs a
   * new pipeline.
   */
  onInputTimeout?(end: { readonly idleMs: number; readonly exit: FfmpegExit }): void;
}

const PENDING_LIMIT = 2000;
const BYE_WAIT_MS = 4000;


export class TrackPipeline {
  readonly kind: TrackKind;
  readonly container: 'ts' | 'webm';
  /** Where the pipeline is (slicer-state.ts); changed only by apply(). */
  #state: SlicerState = INITIAL_SLICER_STATE;
  private ffmpeg: FfmpegProcess | undefined;
  /** How packets reach ffmpeg. */
  readonly #input: SlicerInputPort;
  /** Packets held until ffmpeg has bound its port. */
  private pending: Buffer[] = [];
  /** Packets ffmpeg never got: more came while it started than PENDING_LIMIT. */
  #pendingOverflowed = false;
  private firstPacketMs: number | undefined;
  #firstStartsKeyframe = false;
  /** Wall-clock time of the first RTP timestamp, for slice and snapshot times (arrival-anchor.ts says why). */
  readonly #anchor: ArrivalAnchor;
  /** On `now`: the last packet pushed, and when ffmpeg was launched (the idle start when no packet came). */
  private lastPacketMs: number | undefined;
  private launchedMs = 0;
  private readonly slices: ClosedSliceReader;
  private watcher: FSWatcher | undefined;
  private snapshotsSeen = new Set<string>();
  private readonly now: () => number;
  /** The spawn and bind wait in flight (or done): stop() waits for it, so held packets go out before the BYE. */
  private launching: Promise<void> | undefined;
  packets = 0;
  /** The loss repair in front of ffmpeg, when asked for. */
  readonly #feed: RepairedFeed | undefined;

  constructor(
    private readonly opts: TrackPipelineOptions,
    private readonly events: TrackPipelineEvents,
  ) {
    this.kind = isVideoCodec(opts.track.codec) ? 'video' : 'audio';
    this.container = opts.track.codec === 'VP8' ? 'webm' : 'ts';
    this.now = opts.now ?? Date.now;
    this.#anchor = new ArrivalAnchor(opts.track.clockRate);
    // The piped input's idle end runs on real time, as ffmpeg's own RTP timeout does; `now` confirms it (slicerEnd).
    this.#input = slicerInputFor(opts.track, { workDir: opts.workDir, now: () => systemClock.now(), onOrigin: (ssrc, t) => this.#anchor.origin(ssrc, t) });
    this.slices = new ClosedSliceReader(opts.workDir, this.container, () => this.#startMs());
    if (opts.repair) {
      this.#feed = new RepairedFeed({
        codec: opts.track.codec,
        clockRate: opts.track.clockRate,
        // Media time is real time (packets come in as they are sent), whatever clock the session runs on.
        clock: systemClock,
        send: (p) => this.#toFfmpeg(p),
        requestKeyframe: opts.repair.requestKeyframe,
        meter: opts.repair.meter,
        bounds: RECORDING_JITTER_BOUNDS,
      });
    }
  }

  /** What the loss repair counted on this stream (undefined without repair). */
  get lossStats(): Readonly<FeedStats> | undefined {
    return this.#feed?.stats;
  }

  /**
   * Whether its slicer has the stream from a picture it can start at: the first packet began a keyframe (the SFU's
   * gate starts every subscriber's video at one, or gives the parameter sets just before one) and none was dropped
   * while ffmpeg started. Then asking the publisher for another keyframe only costs: libwebrtc's pacer drops the
   * frames it still queues when a keyframe comes (keyframe flushing), and under a narrowed estimate that was 2-6
   * frames of Chromium's VP8 right after the recording's start (issue 27).
   */
  get startedAtKeyframe(): boolean {
    return this.#firstStartsKeyframe && !this.#pendingOverflowed;
  }

  /** The pipeline's state kind (diagnostics and tests). */
  get state(): SlicerState['kind'] {
    return this.#state.kind;
  }

  async start(): Promise<void> {
    mkdirSync(this.opts.workDir, { recursive: true });
    await this.#input.open();
    // The AAC encoder's channel count is read from the first packet, so a transcoding slicer starts with it.
    this.apply({ kind: 'opened', launchOnPacket: this.transcodes() && this.packets === 0 });
    await this.launching;
  }

  /** Steps the state and runs the step's effects; `packet` is the one a `packet` input carries. */
  private apply(input: SlicerInput, packet?: Buffer): void {
    const step = stepSlicer(this.#state, input);
    this.#state = step.state;
    for (const e of step.effects) this.run(e, packet);
  }

  private run(e: SlicerEffect, packet: Buffer | undefined): void {
    switch (e.kind) {
      case 'hold':
        if (packet && this.pending.length < PENDING_LIMIT) this.pending.push(packet);
        else if (packet) this.#pendingOverflowed = true;
        return;
      case 'send':
        if (packet) this.#input.send(packet);
        return;
      case 'launch':
        this.launching = this.launchNow();
        if (!e.awaited) {
          void this.launching.catch((err: Error) => this.events.onFailure?.({ code: null, signal: null, clean: false, stderrTail: err.message }));
        }
        return;
      case 'flush-held':
        if (e.send) for (const p of this.pending) this.#input.send(p);
        this.pending = [];
        return;
      case 'release-port':
        this.#input.releasePort();
        return;
      case 'ended-alone':
        // ffmpeg died on its own: release the socket and watcher now, nobody may call stop(). What the jitter
        // buffer holds has nowhere to go.
        this.#feed?.close(false);
        this.watcher?.close();
        this.#input.close();
        if (e.end === 'inputTimeout' && this.events.onInputTimeout) this.events.onInputTimeout({ idleMs: e.idleMs, exit: e.exit });
        else this.events.onFailure?.(e.exit);
        return;
      case 'finish': {
        this.watcher?.close();
        const interval = this.opts.snapshotIntervalSec;
        if (interval && this.kind === 'video') {
          for (const f of readdirSync(this.opts.workDir).sort()) this.snapshotMaybe(f, interval);
        }
        this.#input.close();
        return;
      }
    }
  }

  private async launchNow(): Promise<void> {
    const snap = this.kind === 'video' && this.opts.snapshotIntervalSec ? this.opts.snapshotIntervalSec : undefined;
    if (snap) this.watchSnapshots(snap);
    this.launchedMs = this.now();
    this.ffmpeg = new FfmpegProcess(this.args(snap), { extraPipes: 1, stdin: this.#input.stdin, cwd: this.opts.workDir });
    this.opts.onLaunched?.(this.ffmpeg.child);
    const lines = new LineSplitter();
    const fd3 = this.ffmpeg.pipe(3);
    fd3.setEncoding('utf8');
    fd3.on('data', (d: string) => lines.push(d).forEach((l) => this.segmentClosed(l)));
    fd3.on('end', () => lines.flush().forEach((l) => this.segmentClosed(l)));
    const ff = this.ffmpeg;
    void ff.exited.then((exit) =>
      this.apply({ kind: 'exited', exit, idleMs: this.now() - (this.lastPacketMs ?? this.launchedMs), inputTimedOut: this.#input.timedOut(exit) }),
    );
    await this.#input.ready(ff);
    this.apply({ kind: 'bound' });
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
          ? ['-map', '0:a', ...aacArgs(aacChannels(this.opts.track.fmtp, this.pending))]
          : ['-map', '0:a', '-c:a', 'copy'];
    const args = [
      '-loglevel', 'error',
      ...this.#input.args,
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
    if (this.#state.kind === 'ended') return;
    this.lastPacketMs = this.now();
    if (this.firstPacketMs === undefined) {
      this.firstPacketMs = this.lastPacketMs;
      this.#firstStartsKeyframe = startsDecodable(this.opts.track.codec, packet);
    }
    this.#anchor.observe(packet, this.lastPacketMs);
    this.packets++;
    if (this.#feed) this.#feed.push(packet);
    else this.#toFfmpeg(packet);
  }

  private async endOfStream(): Promise<FfmpegExit | undefined> {
    const ff = this.ffmpeg;
    if (!ff) return undefined;
    if (isBound(this.#state) && ff.running && this.#input.end(ff)) {
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
    const atMs = Math.round(this.#startMs() + (Number(m[1]) - 1) * intervalSec * 1000);
    this.events.onSnapshot?.(Object.freeze({ localPath, atMs }));
  }

  #toFfmpeg(packet: Buffer): void {
    this.apply(PACKET, packet);
  }

  /** The wall-clock time of the track's media start (ffmpeg's first timestamp). */
  #startMs(): number {
    return this.#anchor.firstTimestampMs() ?? this.firstPacketMs ?? this.now();
  }

  /** Finishes the current slice, reports it, and releases the port. */
  async stop(): Promise<FfmpegExit | undefined> {
    if (isStoppedOrEnded(this.#state)) return undefined;
    // What the jitter buffer holds goes out first.
    this.#feed?.close();
    this.apply({ kind: 'stop' });
    // A stop while ffmpeg is still starting: the packets held for it are sent first (after its bind), so the
    // BYE below ends a stream that holds them instead of killing a slicer that never saw them.
    await this.launching?.catch(() => undefined);
    // An end of stream (an RTCP BYE, or the end of its stdin) ends ffmpeg's input like an end of file: the last
    // slice and snapshot are flushed cleanly even when the sender has already gone quiet. Signals are the fallback
    // (see FfmpegProcess.stop).
    const exit = await this.endOfStream();
    this.apply({ kind: 'stopped' });
    return exit;
  }
}

const PACKET: SlicerInput = Object.freeze({ kind: 'packet' });

/** Whether an RTP packet of `codec` begins a picture a decoder can start at, or the parameter sets sent just before one. */
function startsDecodable(codec: string, packet: Buffer): boolean {
  const h = readRtpHeader(packet);
  if (!h) return false;
  const payload = packet.subarray(h.payloadOffset, h.payloadEnd);
  if (startsKeyframe(codec, payload)) return true;
  return codec.toLowerCase() === 'h264' && h264Nals(payload).some((n) => n.type === NAL.sps);
}
