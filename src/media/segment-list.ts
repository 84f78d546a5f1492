/**
 * ffmpeg's segment muxer reports each closed slice as a CSV line `name,start,end` (seconds from the stream
 * start). Parsing of those lines, and the closed slice a line stands for (shared by the individual recorder's
 * track pipeline and the mix encoder).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** A slice ffmpeg has closed, as the recorders report it. */
export interface ClosedSlice {
  readonly localPath: string;
  readonly startMs: number;
  readonly durationSec: number;
  readonly container: 'ts' | 'webm';
  readonly bytes: number;
}

export interface ClosedSegment {
  readonly file: string;
  readonly startSec: number;
  readonly endSec: number;
}

export function parseSegmentLine(line: string): ClosedSegment | undefined {
  const t = line.trim();
  if (t === '') return undefined;
  const parts = t.split(',');
  if (parts.length < 3) return undefined;
  const endSec = Number(parts[parts.length - 1]);
  const startSec = Number(parts[parts.length - 2]);
  // A file name may itself hold commas; ffmpeg quotes such names, which we never produce.
  const file = parts.slice(0, -2).join(',').replace(/^"|"$/g, '');
  if (!Number.isFinite(startSec) || !Number.isFinite(endSec) || endSec < startSec || file === '') return undefined;
  return Object.freeze({ file, startSec, endSec });
}

/** Splits a growing text stream into complete lines; keeps the unfinished tail. */
export class LineSplitter {
  private tail = '';
  push(chunk: string): string[] {
    const text = this.tail + chunk;
    const lines = text.split('\n');
    this.tail = lines.pop() ?? '';
    return lines;
  }
  flush(): string[] {
    const rest = this.tail;
    this.tail = '';
    return rest === '' ? [] : [rest];
  }
}

/**
 * Turns segment-list lines into closed slices in `dir`. Start times count from the first slice's start, which
 * stands for `baseMs()` (the first packet, or the recording's frame 0). ffmpeg leaves an empty or header-only tail
 * slice when stopped right after a cut; such slices are skipped.
 */
export class ClosedSliceReader {
  #firstSegmentSec: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly container: ClosedSlice['container'],
    private readonly baseMs: () => number,
  ) {}

  read(line: string): ClosedSlice | undefined {
    const segment = parseSegmentLine(line);
    if (!segment) return undefined;
    const localPath = join(this.dir, segment.file);
    let bytes = 0;
    try {
      bytes = statSync(localPath).size;
    } catch {
      return undefined;
    }
    const durationSec = segment.endSec - segment.startSec;
    if (bytes === 0 || durationSec < 0.05) return undefined;
    this.#firstSegmentSec ??= segment.startSec;
    const startMs = Math.round(this.baseMs() + (segment.startSec - this.#firstSegmentSec) * 1000);
    return Object.freeze({ localPath, startMs, durationSec, container: this.container, bytes });
  }
}
