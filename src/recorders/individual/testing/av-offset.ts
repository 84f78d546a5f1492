/**
 * The A/V offset of one user's individual recording (issue 27), read from the files alone. The synthetic publisher
 * sounds its tone in the first half of every `periodSec` of its media timeline (`toneTurns`) and draws each video
 * frame's index (`frameCode`), so tone onset k and frame k × periodSec × fps are one media instant. Each playlist
 * places it in UTC (a slice's wall-clock start from its name, plus the media time into the slice): the audio's
 * onset minus the video's frame is the offset (positive: the audio comes late).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readFrameCode } from '../../../channel/index.ts';
import { parsePlaylist } from '../../../media/index.ts';
import { decodeEach } from '../../../media/testing/decode-each.ts';
import { tonePower } from '../../../media/mix/testing/tones.ts';
import { framecrcTimes } from './loss-checks.ts';

const RATE = 48_000;
/** Audio analysis window: 5 ms. */
const WINDOW = RATE / 200;

export interface MarkedMedia {
  readonly fps: number;
  readonly width: number;
  readonly height: number;
  readonly toneHz: number;
  readonly periodSec: number;
}

interface DecodedSlice {
  /** Each decoded frame's pts (s), in decoding output order. */
  readonly pts: readonly number[];
  /** Each decoded frame's code (undefined where the band is unreadable). */
  readonly codes: readonly (number | undefined)[];
}

const decodedSlices = new Map<string, Promise<DecodedSlice>>();
/** Slices per ffmpeg: their grey pictures are held in memory at once. */
const SLICES_PER_DECODE = 16;

/**
 * The frames of each video slice of `files` (decoded together, decodeEach): the pictures in grey, their timestamps
 * (framecrc). Kept per file: a test reads a slice's codes and its marks, and a slice does not change once written.
 */
function decodeSlices(files: readonly string[], m: MarkedMedia): Promise<DecodedSlice[]> {
  const key = (file: string) => `${file} ${m.width}x${m.height}`;
  const todo = files.filter((f) => !decodedSlices.has(key(f)));
  const frames = (i: number) => ['-map', `${i}:v:0`, '-fps_mode', 'passthrough'];
  // One batch after another, so that one batch's pictures are in memory at a time.
  let previous: Promise<unknown> = Promise.resolve();
  for (let from = 0; from < todo.length; from += SLICES_PER_DECODE) {
    const batch = todo.slice(from, from + SLICES_PER_DECODE);
    const decoded = previous.then(() =>
      decodeEach(batch, (i) => [
        [...frames(i), '-f', 'rawvideo', '-pix_fmt', 'gray'],
        [...frames(i), '-enc_time_base', '-1', '-f', 'framecrc'],
      ], ['-copyts']),
    );
    previous = decoded.catch(() => undefined);
    batch.forEach((f, i) =>
      decodedSlices.set(
        key(f),
        decoded.then(({ outputs }) => {
          const [grey, crc] = outputs[i]!;
          const size = m.width * m.height;
          const codes: (number | undefined)[] = [];
          for (let at = 0; at + size <= grey!.length; at += size) codes.push(readFrameCode(grey!, m.width, m.height, at));
          return { pts: framecrcTimes(crc!.toString()).pts, codes };
        }),
      ),
    );
  }
  return Promise.all(files.map((f) => decodedSlices.get(key(f))!));
}

/** The frame codes of every decoded frame of a video playlist, in order (undefined where the band is unreadable). */
export async function playlistFrameCodes(playlist: string, m: MarkedMedia): Promise<(number | undefined)[]> {
  const files = parsePlaylist(readFileSync(playlist, 'utf8'), 'video').entries.map((e) => join(dirname(playlist), e.uri));
  return (await decodeSlices(files, m)).flatMap((d) => d.codes);
}

/** UTC (ms) of each frame that marks a period's start (its index a multiple of periodSec × fps), by period number. */
async function videoMarks(playlist: string, m: MarkedMedia): Promise<Map<number, number>> {
  const framesPerPeriod = Math.round(m.periodSec * m.fps);
  const marks = new Map<number, number>();
  const entries = parsePlaylist(readFileSync(playlist, 'utf8'), 'video').entries;
  const decoded = await decodeSlices(entries.map((e) => join(dirname(playlist), e.uri)), m);
  entries.forEach((e, n) => {
    const { pts, codes } = decoded[n]!;
    const first = pts[0];
    if (first === undefined) return;
    codes.forEach((code, i) => {
      if (code === undefined || code % framesPerPeriod !== 0 || pts[i] === undefined) return;
      marks.set(code / framesPerPeriod, e.startMs + (pts[i]! - first) * 1000);
    });
  });
  return marks;
}

/** UTC (ms) of every tone onset the audio playlist holds (a 5 ms window rising past a quarter of the loudest). */
async function audioOnsets(playlist: string, m: MarkedMedia): Promise<number[]> {
  const windows: { atMs: number; power: number }[] = [];
  const entries = parsePlaylist(readFileSync(playlist, 'utf8'), 'audio').entries;
  const { outputs } = await decodeEach(
    entries.map((e) => join(dirname(playlist), e.uri)),
    (i) => [['-map', `${i}:a:0`, '-f', 's16le', '-ac', '1', '-ar', String(RATE)]],
  );
  entries.forEach((e, n) => {
    const [raw] = outputs[n]!;
    const pcm = new Int16Array(raw!.buffer, raw!.byteOffset, raw!.length >> 1);
    for (let w = 0; (w + 1) * WINDOW <= pcm.length; w++) {
      windows.push({ atMs: e.startMs + (w * WINDOW * 1000) / RATE, power: tonePower(pcm, 1, m.toneHz, w * WINDOW, (w + 1) * WINDOW) });
    }
  });
  const loudest = windows.reduce((x, w) => Math.max(x, w.power), 0);
  const onsets: number[] = [];
  // A rise after at least a quarter period of quiet: the tone's onset, not a flutter inside it.
  const quietWindows = Math.round((m.periodSec / 4) * 200);
  let quiet = 0;
  for (const w of windows) {
    if (w.power >= loudest / 4) {
      if (quiet >= quietWindows) onsets.push(w.atMs);
      quiet = 0;
    } else quiet++;
  }
  return onsets;
}

/**
 * The A/V offsets (ms, audio minus video) at every period start both playlists hold: each video mark paired with
 * the audio onset nearest to it, within half a period.
 */
export async function avOffsets(videoPlaylist: string, audioPlaylist: string, m: MarkedMedia): Promise<number[]> {
  const [marks, onsets] = await Promise.all([videoMarks(videoPlaylist, m), audioOnsets(audioPlaylist, m)]);
  const offsets: number[] = [];
  for (const atMs of marks.values()) {
    const nearest = onsets.reduce<number | undefined>((best, o) => (best === undefined || Math.abs(o - atMs) < Math.abs(best - atMs) ? o : best), undefined);
    if (nearest !== undefined && Math.abs(nearest - atMs) < (m.periodSec * 1000) / 2) offsets.push(nearest - atMs);
  }
  return offsets;
}
