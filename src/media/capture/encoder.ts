/**
 * One encoder run of a capture: the ffmpeg of encoder-args.ts and its closed segments turned into UTC-stamped
 * reports; with a push, the encoded MPEG-TS stream it also writes for the pusher process (pushStream). A run ends
 * on stop() (the last segment is flushed and reported first) or on its own (reported by the caller as a crash).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { runChild } from '../../process/index.ts';
import { FFPROBE_BIN, FfmpegProcess, type FfmpegExit } from '../ffmpeg.ts';
import { LineSplitter, parseSegmentLine, type ClosedSegment } from '../segment-list.ts';
import { encoderArgs, PUSH_STREAM_FD, SEGMENT_LIST_FD, type EncoderPlan } from './encoder-args.ts';
import type { CaptureEventListener } from './events.ts';

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

  constructor(
    private readonly plan: EncoderPlan,
    private readonly onEvent: CaptureEventListener,
  ) {
    this.ffmpeg = new FfmpegProcess(encoderArgs(plan), { extraPipes: plan.push ? 2 : 1, cwd: plan.options.workDir });
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
