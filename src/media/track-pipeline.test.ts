// How a slicer's ffmpeg ending on its own is told apart: an input with no packets for ffmpeg's timeout (a clean end
// of the stream) versus a slicer that really broke (docs/recording-individual.md, "A slicer's quiet input").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FfmpegExit } from './ffmpeg.ts';
import type { RtpTrackDescription } from './sdp.ts';
import { startRtpGenerator } from './testing/rtp-generator.ts';
import { INPUT_TIMEOUT_MS, slicerEnd, TrackPipeline, type ClosedSlice } from './track-pipeline.ts';
import { waitUntil } from '../testing/wait.ts';

const timedOut = (extra = ''): FfmpegExit => ({ code: 0, signal: null, clean: true, stderrTail: `${extra}/w/s1/input.sdp: Connection timed out\n` });

test('slicerEnd: only a normal exit after ffmpeg\'s input timeout, confirmed by the pipeline\'s own idle time, is a clean end', () => {
  const idle = INPUT_TIMEOUT_MS + 100;
  assert.equal(slicerEnd(timedOut(), idle, 'input.sdp'), 'inputTimeout');
  // Decoder noise before the timeout (snapshots decode video) does not make it a failure.
  assert.equal(slicerEnd(timedOut('[h264 @ 0x55] no frame!\n'), idle, 'input.sdp'), 'inputTimeout');
  // ffmpeg polls in 100 ms steps and the exit is seen a little later: a second of slack either way.
  assert.equal(slicerEnd(timedOut(), INPUT_TIMEOUT_MS - 900, 'input.sdp'), 'inputTimeout');
  // The pipeline was still sending: ffmpeg's timeout means the loopback path broke.
  assert.equal(slicerEnd(timedOut(), 2_000, 'input.sdp'), 'failure');
  // Crash, kill, bad exit.
  assert.equal(slicerEnd({ code: null, signal: 'SIGSEGV', clean: false, stderrTail: '' }, idle, 'input.sdp'), 'failure');
  assert.equal(slicerEnd({ code: null, signal: 'SIGKILL', clean: false, stderrTail: timedOut().stderrTail }, idle, 'input.sdp'), 'failure');
  assert.equal(slicerEnd({ ...timedOut(), code: 1, clean: false }, idle, 'input.sdp'), 'failure');
  // A normal exit for another reason (no timeout line, or another input's).
  assert.equal(slicerEnd({ code: 0, signal: null, clean: true, stderrTail: '' }, idle, 'input.sdp'), 'failure');
  assert.equal(slicerEnd({ code: 0, signal: null, clean: true, stderrTail: 'other.sdp: Connection timed out\n' }, idle, 'input.sdp'), 'failure');
  // Output faults ffmpeg reports while still exiting 0.
  assert.equal(slicerEnd(timedOut('Error writing trailer of slice_%05d.ts: No space left on device\n'), idle, 'input.sdp'), 'failure');
  assert.equal(slicerEnd(timedOut('av_interleaved_write_frame(): Input/output error\n'), idle, 'input.sdp'), 'failure');
});

interface Ending {
  readonly kind: 'inputTimeout' | 'failure';
  readonly exit: FfmpegExit;
  readonly slices: readonly ClosedSlice[];
}

/** A real slicer (Opus copied, 1 s slices); `ended` resolves how it ended on its own. */
function slicer(dir: string, track: RtpTrackDescription, now?: () => number): { pipeline: TrackPipeline; slices: ClosedSlice[]; ended: Promise<Ending> } {
  const slices: ClosedSlice[] = [];
  let pipeline!: TrackPipeline;
  const ended = new Promise<Ending>((resolve) => {
    pipeline = new TrackPipeline(
      { track, workDir: dir, audioOutput: 'copy', sliceSeconds: 1, ...(now ? { now } : {}) },
      {
        onSlice: (s) => slices.push(s),
        onFailure: (exit) => resolve({ kind: 'failure', exit, slices }),
        onInputTimeout: ({ exit }) => resolve({ kind: 'inputTimeout', exit, slices }),
      },
    );
  });
  return { pipeline, slices, ended };
}

test('a real slicer whose publisher goes silent ends cleanly; one that cannot write, or whose clock saw packets, fails', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'track-pipeline-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const feeds: TrackPipeline[] = [];
  const gen = await startRtpGenerator({ kind: 'opus' }, (p) => feeds.forEach((f) => f.push(p)));
  let genStopped = false;
  t.after(async () => {
    if (!genStopped) await gen.stop();
  });
  // 1: the real clock. 2: an injected clock that never moves, so the pipeline saw no quiet time (the timeout is
  // not confirmed). 3: its directory removed, so ffmpeg cannot open the next slice.
  const quiet = slicer(join(root, 'quiet'), gen.track);
  const frozen = slicer(join(root, 'frozen'), gen.track, () => 1_700_000_000_000);
  const unwritable = slicer(join(root, 'unwritable'), gen.track);
  for (const s of [quiet, frozen, unwritable]) {
    await s.pipeline.start();
    feeds.push(s.pipeline);
  }
  // Each has closed slices before anything happens to it.
  await waitUntil(() => [quiet, frozen, unwritable].every((s) => s.slices.length >= 2), { timeoutMs: 120_000, intervalMs: 100, what: 'two closed slices each' });
  rmSync(join(root, 'unwritable'), { recursive: true, force: true });
  const broken = await unwritable.ended;
  t.diagnostic(`unwritable: code ${broken.exit.code}, stderr ${JSON.stringify(broken.exit.stderrTail.trim().slice(-200))}`);
  assert.equal(broken.kind, 'failure', 'a slicer that cannot write fails');
  await gen.stop();
  genStopped = true;
  const [q, f] = await Promise.all([quiet.ended, frozen.ended]);
  t.diagnostic(`quiet: ${q.kind}, code ${q.exit.code}, ${q.slices.length} slices; frozen clock: ${f.kind}`);
  assert.equal(q.kind, 'inputTimeout', `silent input is a clean end (${JSON.stringify(q.exit)})`);
  assert.equal(q.exit.code, 0);
  assert.ok(q.slices.length >= 2, 'the slices up to the silence were reported');
  assert.ok(q.slices.every((s) => s.bytes > 0));
  assert.equal(f.kind, 'failure', 'a timeout the pipeline\'s own clock does not confirm is not taken for silence');
});

test('a stop while the slicer is still starting sends the packets held for it first: they end up in a slice', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'track-pipeline-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  // One second of a real Opus stream, captured before any slicer exists.
  const held: Buffer[] = [];
  const gen = await startRtpGenerator({ kind: 'opus' }, (p) => held.push(Buffer.from(p)));
  await waitUntil(() => held.length >= 50, { timeoutMs: 60_000, what: '50 Opus packets' });
  await gen.stop();
  const slices: ClosedSlice[] = [];
  const failures: FfmpegExit[] = [];
  // A transcoding slicer starts ffmpeg on its first packet (the AAC channel count is read from it).
  const pipeline = new TrackPipeline(
    { track: gen.track, workDir: join(root, 't'), audioOutput: 'transcode', sliceSeconds: 1 },
    { onSlice: (s) => slices.push(s), onFailure: (e) => failures.push(e) },
  );
  await pipeline.start();
  for (const p of held.slice(0, 50)) pipeline.push(p);
  // ffmpeg has been spawned and has not bound its port yet: every packet is still held.
  await pipeline.stop();
  t.diagnostic(`slices after a stop during start: ${slices.map((s) => `${s.bytes} B`).join(', ')}`);
  assert.deepEqual(failures, []);
  assert.ok(slices.length >= 1 && slices.every((s) => s.bytes > 0), 'the held second of audio is in a slice');
});
