/**
 * One encoder run of a capture: the ffmpeg of encoder-args.ts, its closed segments turned into UTC-stamped
 * reports, and its CDN push watched. A run ends on stop() (the last segment is flushed and reported first) or on
 * its own (reported by the caller as a crash).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { runChild } from '../../process/index.ts';
import { FFPROBE_BIN, FfmpegProcess, type FfmpegExit } from '../ffmpeg.ts';
import { LineSplitter, parseSegmentLine, type ClosedSegment } from '../segment-list.ts';
import { encoderArgs, isPushFailureLine, PROGRESS_FD, SEGMENT_LIST_FD, type EncoderPlan } from './encoder-args.ts';
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
  private pushState: 'none' | 'opening' | 'publishing' | 'failed';
  private stopping = false;

  constructor(
    private readonly plan: EncoderPlan,
    private readonly onEvent: CaptureEventListener,
  ) {
    this.pushState = plan.rtmpUrl === undefined ? 'none' : 'opening';
    this.ffmpeg = new FfmpegProcess(encoderArgs(plan), { extraPipes: 2, cwd: plan.options.workDir });
    const list = new LineSplitter();
    const fd3 = this.ffmpeg.pipe(SEGMENT_LIST_FD);
    fd3.setEncoding('utf8');
    fd3.on('data', (d: string) => list.push(d).forEach((l) => this.segmentLine(l)));
    fd3.on('end', () => list.flush().forEach((l) => this.segmentLine(l)));
    const progress = this.ffmpeg.pipe(PROGRESS_FD);
    progress.setEncoding('utf8');
    progress.on('data', (d: string) => {
      // A progress block means the output header is written: the push branch, if any, got through its connect.
      if (this.pushState === 'opening' && /frame=[1-9]/.test(d)) {
        this.pushState = 'publishing';
        this.onEvent({ kind: 'push-publishing', rtmpUrl: plan.rtmpUrl! });
      }
    });
    const errLines = new LineSplitter();
    (this.ffmpeg.child.stderr as Readable).on('data', (d: string) => errLines.push(d).forEach((l) => this.stderrLine(l)));
  }

  get run(): number {
    return this.plan.run;
  }

  private stderrLine(line: string): void {
    if (this.pushState === 'failed' || this.pushState === 'none' || !isPushFailureLine(line)) return;
    this.pushState = 'failed';
    this.onEvent({ kind: 'push-failed', rtmpUrl: this.plan.rtmpUrl!, message: line.trim() });
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
