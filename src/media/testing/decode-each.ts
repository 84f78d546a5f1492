/**
 * Tests decode a recording slice by slice (each slice on its own: VP8 slices are WebM, which ffmpeg's HLS demuxer
 * does not read as one stream, and a measure per slice is what they compare). One ffmpeg per slice cost about
 * 0.15 s of CPU before it decoded anything (Debian's ffmpeg binds some 200 libraries at start) and the test's
 * process a fork: about a fifth of a recorder test's CPU. Here one ffmpeg decodes every file, each input into outputs
 * of its own, as separate processes would.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FFMPEG_BIN } from '../ffmpeg.ts';

const run = promisify(execFile);

/** Inputs per process: well under the open-file limit with an output or two each. */
const INPUTS_PER_PROCESS = 100;

export interface DecodeEachResult {
  /** Each input's outputs' contents, in the order `outputs` named them. */
  readonly outputs: readonly (readonly Buffer[])[];
  /** What ffmpeg printed for all inputs together (the lines of one input cannot be told apart). */
  readonly stderr: string;
}

/**
 * Decodes every file of `files` in one ffmpeg (per INPUTS_PER_PROCESS). `outputs(input)` gives one input's outputs
 * without their targets: each a list of options that starts with its `-map` of `input` (the file's number among this
 * ffmpeg's inputs) and ends where a file name would follow; the outputs are read back as buffers. `inputOptions` go before every `-i`. Rejects as
 * `execFile` does when ffmpeg fails (an input it cannot open fails them all: decode file by file to say which).
 */
export async function decodeEach(
  files: readonly string[],
  outputs: (input: number) => readonly (readonly string[])[],
  inputOptions: readonly string[] = [],
): Promise<DecodeEachResult> {
  const results: Buffer[][] = [];
  let stderr = '';
  for (let from = 0; from < files.length; from += INPUTS_PER_PROCESS) {
    const batch = files.slice(from, from + INPUTS_PER_PROCESS);
    const dir = mkdtempSync(join(tmpdir(), 'reeltime-decode-'));
    try {
      const targets = batch.map((_, i) => outputs(i).map((_o, k) => join(dir, `${i}-${k}`)));
      const args = ['-v', 'error', '-nostdin'];
      for (const f of batch) args.push(...inputOptions, '-i', f);
      batch.forEach((_, i) => outputs(i).forEach((o, k) => args.push(...o, targets[i]![k]!)));
      const out = await run(FFMPEG_BIN, args, { maxBuffer: 64 * 2 ** 20 });
      stderr += out.stderr;
      for (const t of targets) results.push(t.map((p) => readFileSync(p)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { outputs: results, stderr };
}
