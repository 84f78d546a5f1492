/**
 * One encoder run of a capture: the ffmpeg of encoder-args.ts, fed the sound from the capture's monitor reader,
 * and its closed segments turned into UTC-stamped reports; with a push, the encoded MPEG-TS stream it also writes
 * for the pusher process (pushStream). A run ends
 * on stop() (the last segment is flushed and reported first) or on its own (reported by the caller as a crash).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { runChild } from '../../process/index.ts';
import { FFPROBE_BIN, FfmpegProcess, type FfmpegExit } from '../ffmpeg.ts';
import { LineSplitter, parseSegmentLine, type ClosedSegment } from '../segment-list.ts';
import { AUDIO_IN_FD, encoderArgs, PUSH_STREAM_FD, SEGMENT_LIST_FD, type EncoderPlan } from './encoder-args.ts';
import type { CaptureEventListener } from './events.ts';
import type { MonitorReader } from './monitor-reader.ts';

/** A run's plan without its sound start, which the monitor reader decides when the run begins. */
export type RunPlan = Omit<EncoderPlan, 'audioStartMs'>;

/** First timestamp in a segment file (seconds of capture time), or undefined when ffprobe finds none. */
async function firstTimestampSec(path: string): Promise<number | undefined> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-show_entries', 'format=start_time', '-of', 'csv=p=0', path], { timeoutMs: 10_000 });
  const v = Number(r.stdout.toString().trim());
  return r.code === 0 && Number.isFinite(v) ? v : undefined;
}

export class EncoderRun {
  readonly ffmpeg: FfmpegProcess;
  private segments = 0;
  /** Segment reports in order: the first of a run waits for a probe. */
  private reporting: Promise<void> = Promise.resolve();
  private stopping = false;
  /** The encoded stream as MPEG-TS, for the pusher (runs with a push only). */
  readonly pushStream: Readable | undefined;

  private readonly plan: EncoderPlan;
  private readonly audioIn: Writable;

  /** Starts the run with the sound captured from `startMs` on (UTC ms; the reader must have had samples). */
  constructor(
    runPlan: RunPlan,
    reader: MonitorReader,
    startMs: number,
    private readonly onEvent: CaptureEventListener,
  ) {
    const first = reader.startIndex(startMs);
    this.plan = { ...runPlan, audioStartMs: reader.clock.timeOf(first) };
    const plan = this.plan;
    // fds 3, 4 and 5 (4 stays unused without a push).
    this.ffmpeg = new FfmpegProcess(encoderArgs(plan), { extraPipes: AUDIO_IN_FD - 2, cwd: plan.options.workDir });
    // An extra stdio 'pipe' is a socket pair: the parent's end is writable as well.
    const audioIn = (this.ffmpeg.child.stdio as readonly unknown[])[AUDIO_IN_FD];
    if (!(audioIn instanceof Writable)) throw new Error(`ffmpeg has no pipe on fd ${AUDIO_IN_FD}`);
    this.audioIn = audioIn;
    reader.attach(this.audioIn, first);
    void this.ffmpeg.exited.then(() => reader.detach(this.audioIn));
    const list = new LineSplitter();
    const fd3 = this.ffmpeg.pipe(SEGMENT_LIST_FD);
    fd3.setEncoding('utf8');
    fd3.on('data', (d: string) => list.push(d).forEach((l) => this.segmentLine(l)));
    fd3.on('end', () => list.flush().forEach((l) => this.segmentLine(l)));
    this.pushStream = plan.push ? this.ffmpeg.pipe(PUSH_STREAM_FD) : undefined;
  }

  get run(): number {
    return this.plan.run;
  }

  private segmentLine(line: string): void {
    const seg = parseSegmentLine(line);
    if (!seg) return;
    const index = this.segments++;
    this.reporting = this.reporting.then(() => this.report(seg, index)).catch(() => undefined);
  }

  private async report(seg: ClosedSegment, index: number): Promise<void> {
    const path = join(this.plan.options.workDir, seg.file);
    let bytes = 0;
    try {
      bytes = statSync(path).size;
    } catch {
      return;
    }
    // The segment muxer counts the first segment from 0, not from its first packet: ask the file itself.
    const startSec = index === 0 ? ((await firstTimestampSec(path)) ?? seg.startSec) : seg.startSec;
    const durationSec = Math.max(0, seg.endSec - startSec);
    // A stop right after a cut leaves an empty or header-only tail.
    if (bytes === 0 || durationSec < 0.05) return;
    this.onEvent({
      kind: 'segment',
      segment: Object.freeze({
        path,
        startMs: Math.round(this.plan.originMs + startSec * 1000),
        durationSec: Math.round(durationSec * 1000) / 1000,
        bytes,
        run: this.plan.run,
        newStream: index === 0,
      }),
    });
  }

  /** True when the run ended without stop(). */
  get stopRequested(): boolean {
    return this.stopping;
  }

  /** Ends the run: ffmpeg closes the current segment, which is reported before this resolves. */
  async stop(): Promise<FfmpegExit> {
    this.stopping = true;
    const exit = await this.ffmpeg.stop();
    await this.reporting;
    return exit;
  }

  /** Resolves after ffmpeg exited and every segment it closed was reported. */
  async finished(): Promise<FfmpegExit> {
    const exit = await this.ffmpeg.exited;
    await this.reporting;
    return exit;
  }
}
