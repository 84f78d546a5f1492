/**
 * ffmpeg's segment muxer reports each closed slice as a CSV line `name,start,end` (seconds from the stream
 * start). Pure parsing of those lines.
 */

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
