/**
 * What the loss tests and bench/loss measure on a recorded HLS track (issue 27): frames, the frame slots the slices'
 * pts spans cover, and the lines `ffmpeg -v error` prints decoding each slice. Slice by slice: VP8 slices
 * are WebM, which ffmpeg's HLS demuxer does not read as one stream.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { FFMPEG_BIN } from '../../../media/index.ts';
import { decodeEach } from '../../../media/testing/decode-each.ts';
import { mapBounded } from '../../../testing/parallel.ts';

const run = promisify(execFile);
const SAME_TIMESTAMP = /non monotonically increasing dts to muxer/;
/** ffmpeg's log folds a line repeated at once into this one: it is of the kind of the line before it. */
const REPEATED = /^\s*Last message repeated (\d+) times?$/;

export interface TrackMeasure {
  readonly frames: number;
  /** Media time the slices' frames span, one frame duration added per slice (s). */
  readonly slotSec: number;
  readonly sampleRate: number;
  readonly decodeErrors: number;
  /** The decode error lines themselves (the first few). */
  readonly errorLines: readonly string[];
  /**
   * Lines of the null muxer about two frames with one timestamp (`non monotonically increasing dts`): the frames
   * decoded; a WebM slice keeps milliseconds, and two of Chromium's frames captured within one have the same.
   */
  readonly timestampWarnings: number;
}

/** `frameSec`: one frame's duration (video: 1/fps; audio: 0, an AAC frame's is added from the sample rate). */
export async function measureTrack(playlist: string, frameSec: number): Promise<TrackMeasure> {
  const dir = playlist.slice(0, playlist.lastIndexOf('/'));
  const slices = readFileSync(playlist, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const files = slices.map((name) => `${dir}/${name}`);
  // framecrc: one line per decoded frame, in the slice's own time base.
  const frameTimes = ['-fps_mode', 'passthrough', '-enc_time_base', '-1', '-f', 'framecrc'];
  // All slices in one ffmpeg; only when it printed more than timestamp lines (or failed), slice by slice again, so
  // that each error line names its slice.
  const together = await decodeEach(files, (i) => [['-map', String(i), ...frameTimes]], ['-copyts']).catch(() => undefined);
  const clean = together !== undefined && !stderrLines(together.stderr).some((l) => l.kind === 'error');
  const perSlice = clean
    ? together.outputs.map(([crc], i) => ({ name: slices[i]!, ...framecrcTimes(crc!.toString()), stderr: '' }))
    : await mapBounded(slices, 3, async (name) => {
        // One process per slice for both: the frames' timestamps on stdout and the decoder's errors on stderr.
        const dec = await run(FFMPEG_BIN, ['-v', 'error', '-copyts', '-i', `${dir}/${name}`, ...frameTimes, '-'], { maxBuffer: 64 * 2 ** 20 }).catch(
          (e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr || 'ffmpeg failed' }),
        );
        return { name, ...framecrcTimes(dec.stdout), stderr: dec.stderr };
      });
  let frames = 0;
  let slotSec = 0;
  let sampleRate = 0;
  const errorLines: string[] = [];
  // Timestamp lines of all slices together (they need no slice's name).
  let timestampWarnings = clean ? stderrLines(together.stderr).reduce((n, l) => n + l.count, 0) : 0;
  for (const { name, pts, sampleRate: rate, stderr } of perSlice) {
    sampleRate ||= rate;
    const step = frameSec > 0 ? frameSec : sampleRate > 0 ? 1024 / sampleRate : 0;
    frames += pts.length;
    if (pts.length > 0) slotSec += Math.max(...pts) - Math.min(...pts) + step;
    for (const l of stderrLines(stderr)) {
      if (l.kind === 'error') errorLines.push(`${name}: ${l.text}`);
      else timestampWarnings += l.count;
    }
  }
  return { frames, slotSec, sampleRate, decodeErrors: errorLines.length, errorLines: errorLines.slice(0, 5), timestampWarnings };
}

/**
 * ffmpeg's lines: decode errors, and the null muxer's lines about two frames with one timestamp (with their count:
 * "Last message repeated N times" folds repeats into one line of the kind before it).
 */
function stderrLines(stderr: string): { readonly kind: 'error' | 'timestamp'; readonly text: string; readonly count: number }[] {
  const lines: { kind: 'error' | 'timestamp'; text: string; count: number }[] = [];
  let lastWasTimestamp = false;
  for (const l of stderr.split('\n')) {
    if (l.trim() === '') continue;
    const repeated = REPEATED.exec(l);
    if (!repeated) lastWasTimestamp = SAME_TIMESTAMP.test(l);
    lines.push({ kind: lastWasTimestamp ? 'timestamp' : 'error', text: l, count: repeated ? Number(repeated[1]) : 1 });
  }
  return lines;
}

/** The frames' times (s) and the sample rate of ffmpeg's framecrc output (`#tb 0: 1/1000`, `#sample_rate 0: 48000`). */
export function framecrcTimes(out: string): { readonly pts: number[]; readonly sampleRate: number } {
  const timeBase = new Map<string, number>();
  let sampleRate = 0;
  const pts: number[] = [];
  for (const line of out.split('\n')) {
    const header = /^#(tb|sample_rate) (\d+): (\d+)(?:\/(\d+))?$/.exec(line.trim());
    if (header) {
      if (header[1] === 'tb') timeBase.set(header[2]!, Number(header[3]) / Number(header[4]));
      else sampleRate ||= Number(header[3]);
      continue;
    }
    if (line.startsWith('#') || line.trim() === '') continue;
    // stream, dts, pts, duration, size, hash
    const [stream, , t] = line.split(',').map((f) => f.trim());
    const tb = timeBase.get(stream ?? '');
    if (tb !== undefined && t !== undefined && Number.isFinite(Number(t))) pts.push(Number(t) * tb);
  }
  return { pts, sampleRate };
}

/** Frames over the frame slots of the spans: 1 when nothing is missing inside a slice. */
export function keptByPts(m: TrackMeasure, frameSec: number): number {
  const step = frameSec > 0 ? frameSec : m.sampleRate > 0 ? 1024 / m.sampleRate : 1;
  return m.frames / Math.max(1, m.slotSec / step);
}

/** Audio analysis window for dropouts: 10 ms at 48 kHz. */
const DROPOUT_WINDOW = 480;

/**
 * The 10 ms windows of an audio track of steady loudness where its power falls below a tenth of its median (what
 * a listener hears as a dropout: a lost frame concealed as near silence, or badly), and the windows counted. Each
 * slice's first and last 50 ms are left out (the AAC encoder's priming and the slice's cut).
 */
export async function audioDropouts(playlist: string): Promise<{ readonly windows: number; readonly dropouts: number }> {
  const powers: number[] = [];
  const dir = playlist.slice(0, playlist.lastIndexOf('/') + 1);
  const files = readFileSync(playlist, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((uri) => dir + uri);
  const { outputs } = await decodeEach(files, (i) => [['-map', `${i}:a:0`, '-f', 's16le', '-ac', '1', '-ar', '48000']]);
  for (const [raw] of outputs) {
    const pcm = new Int16Array(raw!.buffer, raw!.byteOffset, raw!.length >> 1);
    for (let w = 5; (w + 6) * DROPOUT_WINDOW <= pcm.length; w++) {
      let power = 0;
      for (let i = w * DROPOUT_WINDOW; i < (w + 1) * DROPOUT_WINDOW; i++) power += pcm[i]! * pcm[i]!;
      powers.push(power);
    }
  }
  const median = [...powers].sort((a, b) => a - b)[powers.length >> 1] ?? 0;
  return { windows: powers.length, dropouts: powers.filter((p) => p < median / 10).length };
}
