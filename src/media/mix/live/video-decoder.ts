/**
 * One user's video → I420 frames (docs/recording-mix.md, "Live pipeline"). An ffmpeg child decodes the RTP
 * stream and writes rawvideo yuv420p at a fixed size: the size the compositor draws the picture at in the user's
 * region (`setRegion`), or before a region is known the source size read from the keyframe (VP8 header or H.264
 * SPS); never larger than the source, scaled down to fit the bound (the canvas). ffmpeg's scaler does the
 * downscale, so the compositor copies rows instead of scaling. A keyframe that announces a new source size starts
 * a new decoder from that keyframe on and drops the old one (the last frame stays on screen meanwhile). A new
 * region size is taken at a keyframe too (asked for at once when the picture has to grow, after a while when it
 * may shrink), and there the old decoder keeps delivering until the new one's first frame, so a layout change
 * never freezes a picture. Each decoded frame is handed over with the RTP timestamp it was sent with, so the
 * engine can show it on the sender's clock, in step with the audio.
 */
import { type I420Frame, i420ByteLength, i420FromBytes } from '../i420.ts';
import type { RtpTrackDescription } from '../../sdp.ts';
import { rmSync } from 'node:fs';
import { FrameSocketReader, frameSocketPath } from './frame-socket.ts';
import { BatchHold } from './batch-hold.ts';
import { type DecoderSlot, type RtpDecoderProcess, safeName, startDecoderSlot } from './rtp-decoder.ts';
import { readRtpHeader } from '../../../rtp-payload/index.ts';
import { rtpTimestampDelta, type SenderClock } from './sender-clock.ts';
import { decodeSize, drawnSize, keyframeSize, type VideoSize } from './video-size.ts';
import type { MixRegion } from '../region.ts';

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
  /**
   * The mix's jitter window: packets wait for `flush`, which writes them when BatchHold says (fewer wake-ups of the
   * child). Without it every packet is sent at once.
   */
  readonly latencyMs?: number;
}

const KEYFRAME_REQUEST_INTERVAL_MS = 1000;
/**
 * A smaller region is taken at the sender's next keyframe; only if none comes for this long is one asked for (a
 * reflow or a speaker change must not make every publisher send keyframes, and the larger picture costs only
 * compositing meanwhile).
 */
const SHRINK_WAIT_MS = 5000;

/** Where the user is drawn: the largest of their regions (what the picture's decoded size is chosen for). */
export interface DrawnRegion {
  readonly width: number;
  readonly height: number;
  readonly renderMode: 'crop' | 'fit';
}

/** The largest region `uid` is drawn in, if any. */
export function drawnRegionOf(regions: readonly MixRegion[], uid: string): DrawnRegion | undefined {
  let best: MixRegion | undefined;
  for (const r of regions) {
    if (r.uid === uid && (!best || r.rect.width * r.rect.height > best.rect.width * best.rect.height)) best = r;
  }
  return best && { width: best.rect.width, height: best.rect.height, renderMode: best.renderMode };
}

interface Running extends DecoderSlot {
  /** The frames given to this child and not yet decoded, oldest first; `writtenAtMs` once sent to it. */
  readonly inFlight: { readonly rtpTimestamp: number; writtenAtMs: number | undefined }[];
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
  /** The child whose frames are delivered. */
  #running: Running | undefined;
  /** A child started at another output size, waiting for its first frame to take over from #running. */
  #next: Running | undefined;
  #generation = 0;
  #stopped = false;
  #lastKeyframeRequestMs = -Infinity;
  #region: DrawnRegion | undefined;
  /** Since when the running size has been larger than the region needs (undefined: it is not). */
  #oversizeSinceMs: number | undefined;
  /** RTP timestamp of the last frame delivered: a child taking over skips what the previous one delivered. */
  #lastDelivered: number | undefined;
  readonly #pool: Uint8Array[] = [];
  readonly #hold: BatchHold | undefined;
  /** Frames written so far by all decoders of this user (diagnostics, benchmarks). */
  frames = 0;

  constructor(private readonly options: UserVideoDecoderOptions) {
    this.#hold = options.latencyMs !== undefined ? new BatchHold({ latencyMs: options.latencyMs }) : undefined;
  }

  get size(): VideoSize | undefined {
    return this.#running?.size;
  }

  /**
   * The region the user is drawn in now (the pipeline calls this for every composed frame; unchanged values cost a
   * comparison). Undefined when the user is not drawn: the decoded size stays as it is.
   */
  setRegion(region: DrawnRegion | undefined): void {
    const r = this.#region;
    if (!region || (r && r.width === region.width && r.height === region.height && r.renderMode === region.renderMode)) return;
    this.#region = region;
    const newest = this.#next ?? this.#running;
    if (!newest) return;
    const wanted = this.#sizeFor(newest.source);
    if (wanted.width > newest.size.width || wanted.height > newest.size.height) this.#askForKeyframe();
  }

  push(packet: Buffer): void {
    if (this.#stopped) return;
    const header = readRtpHeader(packet);
    if (!header || header.payloadType !== this.options.track.payloadType) return;
    const now = this.options.now();
    this.options.clock.packetArrived(header.timestamp, now);
    const source = keyframeSize(this.options.track.codec, packet.subarray(header.payloadOffset, header.payloadEnd));
    const newest = this.#next ?? this.#running;
    const dead = newest?.process !== undefined && !newest.process.running;
    if (source) {
      const size = this.#sizeFor(source);
      if (!newest || dead || !sameSize(newest.source, source)) {
        this.#start(source, size, packet, false);
      } else if (!sameSize(newest.size, size)) {
        this.#start(source, size, packet, true);
      }
    }
    const running = this.#running;
    if (!running || (running.process !== undefined && !running.process.running)) return this.#askForKeyframe();
    for (const child of this.#next ? [running, this.#next] : [running]) {
      if (child.held[0] === packet) {
        if (header.marker) this.#frameSent(child, header.timestamp);
        continue; // started from this packet
      }
      if (child.process) child.process.push(packet);
      else if (child.held.length < HELD_LIMIT) child.held.push(packet);
      if (header.marker) this.#frameSent(child, header.timestamp);
    }
    const clock = this.options.clock;
    const hold = this.#hold;
    if (!hold) this.#written(now);
    else {
      hold.queued(now, clock.synchronised ? clock.wallTimeOf(header.timestamp) : undefined);
      // Without waiting for the next chance when waiting is already too long (a late packet, no frame clock yet).
      if (hold.shouldWrite(now, now)) this.#sendQueued(now);
    }
    this.#checkOversize(now);
  }

  /**
   * A chance to send the queued packets to the children (the pipeline offers one per output frame); the next comes
   * at `nextChanceMs`.
   */
  flush(nextChanceMs: number): void {
    const now = this.options.now();
    if (this.#hold?.shouldWrite(now, nextChanceMs)) this.#sendQueued(now);
  }

  #sendQueued(now: number): void {
    for (const child of [this.#running, this.#next]) child?.process?.flush();
    this.#hold?.written();
    this.#written(now);
  }

  /** The frames pushed so far have gone to the children. */
  #written(now: number): void {
    for (const child of [this.#running, this.#next]) {
      if (!child) continue;
      for (let i = child.inFlight.length - 1; i >= 0 && child.inFlight[i]!.writtenAtMs === undefined; i--) child.inFlight[i]!.writtenAtMs = now;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const children = [this.#running, this.#next];
    this.#running = undefined;
    this.#next = undefined;
    await Promise.all(children.map((c) => c?.process?.stop()));
  }

  /** The decoded size for a source: the drawn size in the current region, bounded by the canvas. */
  #sizeFor(source: VideoSize): VideoSize {
    const bounded = decodeSize(source, this.options.bound);
    const region = this.#region;
    if (!region) return bounded;
    const drawn = drawnSize(source, region, region.renderMode);
    return drawn.width <= bounded.width && drawn.height <= bounded.height ? drawn : bounded;
  }

  /** A picture decoded larger than its region needs: after SHRINK_WAIT_MS without a keyframe, ask for one. */
  #checkOversize(now: number): void {
    const newest = this.#next ?? this.#running;
    if (!newest || !this.#region) return;
    const wanted = this.#sizeFor(newest.source);
    if (sameSize(wanted, newest.size)) {
      this.#oversizeSinceMs = undefined;
      return;
    }
    this.#oversizeSinceMs ??= now;
    if (now - this.#oversizeSinceMs >= SHRINK_WAIT_MS) this.#askForKeyframe();
  }

  #askForKeyframe(): void {
    const now = this.options.now();
    if (now - this.#lastKeyframeRequestMs < KEYFRAME_REQUEST_INTERVAL_MS) return;
    this.#lastKeyframeRequestMs = now;
    this.options.onKeyframeNeeded?.();
  }

  /**
   * A child from this keyframe on. `overlap`: the source is unchanged and only the output size differs, so the
   * running child keeps delivering until the new one's first frame; otherwise the running one stops now.
   */
  #start(source: VideoSize, size: VideoSize, keyframePacket: Buffer, overlap: boolean): void {
    void this.#next?.process?.stop();
    this.#next = undefined;
    this.#oversizeSinceMs = undefined;
    const generation = ++this.#generation;
    const child: Running = { process: undefined, held: [keyframePacket], inFlight: [], source, size };
    if (overlap && this.#running) {
      this.#next = child;
    } else {
      void this.#running?.process?.stop();
      this.#running = child;
      this.#lastDelivered = undefined;
    }
    const name = `video-${safeName(this.options.uid)}-${generation}`;
    // Frames come through a Unix socket ffmpeg listens on, read straight into pooled frame buffers (frame-socket.ts).
    const socketPath = frameSocketPath(this.options.workDir, name);
    rmSync(socketPath, { force: true });
    const args = [
      '-an', '-threads', '1', '-vf', `scale=${size.width}:${size.height}:flags=bilinear`, '-pix_fmt', 'yuv420p',
      '-fps_mode', 'passthrough', '-f', 'rawvideo', '-listen', '1', `unix:${socketPath}`,
    ];
    const wanted = (): boolean => !this.#stopped && (this.#running === child || this.#next === child);
    startDecoderSlot(child, this.options.track, this.options.workDir, name, args, wanted, (process) => this.#readFrames(process, child, socketPath), false, this.#hold !== undefined);
  }

  #frameSent(running: Running, rtpTimestamp: number): void {
    running.inFlight.push({ rtpTimestamp, writtenAtMs: undefined });
    if (running.inFlight.length > IN_FLIGHT_LIMIT) running.inFlight.shift();
  }

  /** The RTP timestamp of the frame that just came out of the decoder; how late the child answered goes to the hold. */
  #decodedFrameTimestamp(running: Running, arrivalMs: number): number | undefined {
    const queue = running.inFlight;
    const stale = (w: number | undefined): boolean => w !== undefined && w < arrivalMs - STALE_IN_FLIGHT_MS;
    while (queue.length > 1 && stale(queue[0]!.writtenAtMs)) queue.shift();
    const frame = queue.shift();
    if (frame?.writtenAtMs !== undefined) this.#hold?.decoded(arrivalMs - frame.writtenAtMs, arrivalMs);
    return frame?.rtpTimestamp;
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
  #readFrames(process: RtpDecoderProcess, child: Running, socketPath: string): void {
    const { size } = child;
    const length = i420ByteLength(size.width, size.height);
    const reader = new FrameSocketReader({
      path: socketPath,
      frameBytes: length,
      nextBuffer: () => {
        const spare = this.#pool.pop();
        return spare && spare.length === length ? spare : new Uint8Array(length);
      },
      alive: () => process.running && (this.#running === child || this.#next === child),
      onFrame: (done) => this.#decoded(child, done),
    });
    void process.exited.then(() => reader.close());
  }

  #decoded(child: Running, data: Uint8Array): void {
    if (this.#stopped) return;
    const arrival = this.options.now();
    const rtp = this.#decodedFrameTimestamp(child, arrival);
    if (child === this.#next) {
      // The previous child may be ahead (it was warm): take over from the first frame it has not delivered.
      const last = this.#lastDelivered;
      if (rtp === undefined || (last !== undefined && rtpTimestampDelta(rtp, last) <= 0)) return;
      void this.#running?.process?.stop();
      this.#running = child;
      this.#next = undefined;
    } else if (child !== this.#running) {
      return;
    }
    if (rtp !== undefined) this.#lastDelivered = rtp;
    this.frames++;
    const sent = rtp === undefined ? undefined : this.options.clock.wallTimeOf(rtp);
    const senderTime = sent === undefined ? arrival : Math.min(arrival, Math.max(arrival - MAX_TRANSIT_MS, sent));
    this.options.onFrame(i420FromBytes(data, child.size.width, child.size.height), senderTime);
  }
}

const sameSize = (a: VideoSize, b: VideoSize): boolean => a.width === b.width && a.height === b.height;
