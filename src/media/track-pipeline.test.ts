// How a slicer's ffmpeg ending on its own is told apart: an input with no packets for ffmpeg's timeout (a clean end
// of the stream) versus a slicer that really broke (docs/recording-individual.md, "A slicer's quiet input").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FFPROBE_BIN, type FfmpegExit } from './ffmpeg.ts';
import type { RtpTrackDescription } from './sdp.ts';
import { startRtpGenerator } from './testing/rtp-generator.ts';
import { ffmpegSaysInputTimedOut, INPUT_TIMEOUT_MS, slicerEnd, TrackPipeline, type ClosedSlice } from './track-pipeline.ts';
import { waitUntil } from '../testing/wait.ts';

/** As a slicer reading RTP through input.sdp decides. */
const end = (exit: FfmpegExit, idleMs: number) => slicerEnd(exit, idleMs, ffmpegSaysInputTimedOut(exit, 'input.sdp'));
const execFileP = promisify(execFile);
const timedOut = (extra = ''): FfmpegExit => ({ code: 0, signal: null, clean: true, stderrTail: `${extra}/w/s1/input.sdp: Connection timed out\n` });

test('slicerEnd: only a normal exit after ffmpeg\'s input timeout, confirmed by the pipeline\'s own idle time, is a clean end', () => {
  const idle = INPUT_TIMEOUT_MS + 100;
  assert.equal(end(timedOut(), idle), 'inputTimeout');
  // Decoder noise before the timeout (snapshots decode video) does not make it a failure.
  assert.equal(end(timedOut('[h264 @ 0x55] no frame!\n'), idle), 'inputTimeout');
  // ffmpeg polls in 100 ms steps and the exit is seen a little later: a second of slack either way.
  assert.equal(end(timedOut(), INPUT_TIMEOUT_MS - 900), 'inputTimeout');
  // The pipeline was still sending: ffmpeg's timeout means the loopback path broke.
  assert.equal(end(timedOut(), 2_000), 'failure');
  // Crash, kill, bad exit.
  assert.equal(end({ code: null, signal: 'SIGSEGV', clean: false, stderrTail: '' }, idle), 'failure');
  assert.equal(end({ code: null, signal: 'SIGKILL', clean: false, stderrTail: timedOut().stderrTail }, idle), 'failure');
  assert.equal(end({ ...timedOut(), code: 1, clean: false }, idle), 'failure');
  // A normal exit for another reason (no timeout line, or another input's).
  assert.equal(end({ code: 0, signal: null, clean: true, stderrTail: '' }, idle), 'failure');
  assert.equal(end({ code: 0, signal: null, clean: true, stderrTail: 'other.sdp: Connection timed out\n' }, idle), 'failure');
  // Output faults ffmpeg reports while still exiting 0.
  assert.equal(end(timedOut('Error writing trailer of slice_%05d.ts: No space left on device\n'), idle), 'failure');
  assert.equal(end(timedOut('av_interleaved_write_frame(): Input/output error\n'), idle), 'failure');
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
  // H.264 goes to ffmpeg through a pipe (slicer-inputs.ts), which has no timeout of its own: the pipeline ends it.
  let video: TrackPipeline | undefined;
  const videoGen = await startRtpGenerator({ kind: 'h264', width: 160, height: 90, gop: 15 }, (p) => video?.push(p));
  let genStopped = false;
  t.after(async () => {
    if (!genStopped) await Promise.all([gen.stop(), videoGen.stop()]);
  });
  // 1: the real clock. 2: an injected clock that never moves, so the pipeline saw no quiet time (the timeout is
  // not confirmed). 3: its directory removed, so ffmpeg cannot open the next slice.
  const quiet = slicer(join(root, 'quiet'), gen.track);
  const frozen = slicer(join(root, 'frozen'), gen.track, () => 1_700_000_000_000);
  const unwritable = slicer(join(root, 'unwritable'), gen.track);
  const quietVideo = slicer(join(root, 'quiet-video'), videoGen.track);
  for (const s of [quiet, frozen, unwritable]) {
    await s.pipeline.start();
    feeds.push(s.pipeline);
  }
  await quietVideo.pipeline.start();
  video = quietVideo.pipeline;
  // Each has closed slices before anything happens to it.
  await waitUntil(() => [quiet, frozen, unwritable, quietVideo].every((s) => s.slices.length >= 2), { timeoutMs: 120_000, intervalMs: 100, what: 'two closed slices each' });
  rmSync(join(root, 'unwritable'), { recursive: true, force: true });
  const broken = await unwritable.ended;
  t.diagnostic(`unwritable: code ${broken.exit.code}, stderr ${JSON.stringify(broken.exit.stderrTail.trim().slice(-200))}`);
  assert.equal(broken.kind, 'failure', 'a slicer that cannot write fails');
  await Promise.all([gen.stop(), videoGen.stop()]);
  genStopped = true;
  const [q, f, v] = await Promise.all([quiet.ended, frozen.ended, quietVideo.ended]);
  assert.equal(v.kind, 'inputTimeout', `silent H.264 input is a clean end too (${JSON.stringify(v.exit)})`);
  assert.ok(v.slices.length >= 2 && v.slices.every((s) => s.bytes > 0));
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

test('H.264 slices keep each frame\'s own RTP timestamp (ffmpeg\'s RTP input stamped each with the one before)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'track-pipeline-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  let pipeline: TrackPipeline | undefined;
  const frameTimestamps: number[] = [];
  const gen = await startRtpGenerator({ kind: 'h264', width: 160, height: 90, gop: 15 }, (p) => {
    if (!pipeline) return;
    // The marker bit ends a frame: one timestamp per frame.
    if (p[1]! & 0x80) frameTimestamps.push(p.readUInt32BE(4));
    pipeline.push(p);
  });
  t.after(() => gen.stop());
  const { pipeline: p, slices } = slicer(join(root, 'v'), gen.track);
  await p.start();
  pipeline = p;
  await waitUntil(() => slices.length >= 3, { timeoutMs: 60_000, intervalMs: 100, what: 'three closed slices' });
  await p.stop();
  const pts: number[] = [];
  // The last slice may hold only the keyframe the stop came after, which ffprobe cannot read on its own ("End of
  // file"; so through ffmpeg's RTP input too): the slices before it are read.
  for (const s of slices.slice(0, -1)) {
    const { stdout } = await execFileP(FFPROBE_BIN, ['-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=pts', '-of', 'json', s.localPath]);
    pts.push(...((JSON.parse(stdout) as { packets?: { pts?: number }[] }).packets ?? []).map((x) => Number(x.pts)));
  }
  // The slices' frames are the frames sent, from the first keyframe on, 6000 ticks apart (15 fps) as sent.
  const steps = pts.slice(1).map((x, i) => x - pts[i]!);
  const sent = frameTimestamps.slice(1).map((x, i) => (x - frameTimestamps[i]!) | 0);
  t.diagnostic(`${pts.length} frames in ${slices.length} slices; pts steps ${[...new Set(steps)].join(', ')}; sent steps ${[...new Set(sent)].join(', ')}`);
  assert.ok(pts.length >= 30);
  assert.deepEqual([...new Set(steps)], [6000], 'every frame 1/15 s after the one before, the first too');
});
