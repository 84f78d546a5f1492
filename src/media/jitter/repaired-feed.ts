/**
 * A StreamRepair driven in time: packets in as they arrive, repaired packets out to `send`, a timer at the buffer's
 * deadline so a hole is given up on without waiting for the next packet, and keyframe requests rate-limited (the
 * first at once, then at most one per `keyframeIntervalMs` while the stream waits for a keyframe). An Opus feed
 * remakes lost packets with libopus (opus-loss.ts) once it has loaded, a moment after the feed starts.
 */
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { RtpCodecName } from '../sdp.ts';
import type { JitterBounds } from './jitter-buffer.ts';
import type { FeedStats, LossMeter } from './loss-meter.ts';
import { createOpusLossRepair, type OpusLossRepair } from './opus-loss.ts';
import { StreamRepair, type RepairResult } from './stream-repair.ts';

export const KEYFRAME_REQUEST_INTERVAL_MS = 500;

let libopusWarned = false;

export interface RepairedFeedOptions {
  readonly codec: RtpCodecName;
  readonly clockRate: number;
  readonly clock: Clock;
  readonly send: (packet: Buffer) => void;
  /** Asks the sender for a keyframe (the subscription's PLI path). */
  readonly requestKeyframe?: (() => void) | undefined;
  readonly keyframeIntervalMs?: number;
  readonly bounds?: JitterBounds;
  /** Process totals for /metrics. */
  readonly meter?: LossMeter | undefined;
  /** Opus: remake lost packets with libopus (default true); false leaves them to the decoder behind. */
  readonly opusRepair?: boolean;
}


export class RepairedFeed {
  readonly #repair: StreamRepair;
  readonly stats: FeedStats;
  #timer: TimerHandle | undefined;
  #timerAt = 0;
  #lastKeyframeAskMs: number | undefined;
  #closed = false;
  #opus: OpusLossRepair | undefined;

  constructor(private readonly o: RepairedFeedOptions) {
    this.#repair = new StreamRepair(o.codec, o.clockRate, o.bounds);
    this.stats = Object.assign(this.#repair.stats, { keyframeRequests: 0 });
    o.meter?.add(o.codec === 'opus' ? 'audio' : 'video', this.stats);
    if (o.codec === 'opus' && o.opusRepair !== false) {
      createOpusLossRepair().then(
        (repair) => {
          if (this.#closed) return repair.close();
          this.#opus = repair;
          this.#repair.useOpusRepair(repair);
        },
        // Without libopus the lost packets go on as TOC-only ones, for the decoder to conceal: said once.
        (e: unknown) => {
          if (libopusWarned) return;
          libopusWarned = true;
          process.emitWarning(`libopus did not load, lost Opus packets are not remade: ${e instanceof Error ? e.message : String(e)}`);
        },
      );
    }
  }

  push(packet: Buffer): void {
    if (this.#closed) return;
    this.#emit(this.#repair.push(packet, this.o.clock.now()));
    this.#arm();
  }

  /** How long a hole is waited for now (ms). */
  holdMs(): number {
    return this.#repair.holdMs(this.o.clock.now());
  }

  /** End of stream: held packets go out (unless `flush` is false: nobody to take them); the feed takes no more. */
  close(flush = true): void {
    if (this.#closed) return;
    const last = this.#repair.flush();
    if (flush) this.#emit(last);
    this.#closed = true;
    this.#opus?.close();
    if (this.#timer) this.o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.o.meter?.ended(this.o.codec === 'opus' ? 'audio' : 'video', this.stats);
  }

  #emit(r: RepairResult): void {
    for (const p of r.out) this.o.send(p);
    if (r.wantKeyframe) this.#askKeyframe();
  }

  #askKeyframe(): void {
    if (!this.o.requestKeyframe) return;
    const now = this.o.clock.now();
    const interval = this.o.keyframeIntervalMs ?? KEYFRAME_REQUEST_INTERVAL_MS;
    if (this.#lastKeyframeAskMs !== undefined && now - this.#lastKeyframeAskMs < interval) return;
    this.#lastKeyframeAskMs = now;
    this.stats.keyframeRequests++;
    this.o.requestKeyframe();
  }

  #arm(): void {
    const now = this.o.clock.now();
    const at = this.#repair.deadline(now);
    if (at === undefined) return;
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) this.o.clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.o.clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.#closed) return;
      this.#emit(this.#repair.poll(this.o.clock.now()));
      this.#arm();
    }, Math.max(0, at - now));
  }
}
