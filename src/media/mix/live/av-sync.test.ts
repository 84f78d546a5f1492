import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFPROBE_BIN, runFfmpeg } from '../../ffmpeg.ts';
import { runChild } from '../../../process/index.ts';
import type { ClosedSlice } from '../../segment-list.ts';
import { i420ByteLength } from '../i420.ts';
import { testPipeline } from './testing/pipeline.ts';
import { startFlashBeepSource } from './testing/rtp-source.ts';
import { waitUntil } from '../../../testing/wait.ts';

const W = 320;
const H = 180;
// Output at 30 fps (the source sends 15): a flash is seen to 33 ms instead of 67.
const FPS = 30;

test('a flash and a beep sent at the same instant come out together', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-sync-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const slices: ClosedSlice[] = [];
  // The test source's video reaches the pipeline about 0.5 s after its audio; the window must cover that.
  const pipeline = testPipeline(dir, { canvas: { width: W, height: H }, fps: FPS, bitrateKbps: 300, latencyMs: 700 }, { onSlice: (s) => slices.push(s) });
  pipeline.join('a');
  pipeline.start();
  const source = await startFlashBeepSource(
    (kind, p) => pipeline.pushRtp('a', kind, kind === 'video' ? source.video : source.audio, p),
    (kind, sr) => pipeline.pushSenderReport('a', kind, sr),
  );
  t.after(() => source.stop());
  await waitUntil(() => pipeline.framesWritten >= 8 * FPS, { timeoutMs: 120_000, intervalMs: 50, what: `${8 * FPS} frames` });
  await source.stop();
  await pipeline.stop();

  const all = join(dir, 'all.ts');
  writeFileSync(all, Buffer.concat(slices.map((s) => readFileSync(s.localPath))));
  await runFfmpeg(['-i', all, '-map', '0:v', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', join(dir, 'v.yuv')]);
  await runFfmpeg(['-i', all, '-map', '0:a', '-f', 's16le', '-ac', '1', '-ar', '48000', join(dir, 'a.pcm')]);
  // Players align the streams by their start times (AAC's priming makes the audio start a little earlier).
  const probe = await runChild(FFPROBE_BIN, ['-v', 'error', '-of', 'json', '-show_entries', 'stream=codec_type,start_time', all]);
  const starts = (JSON.parse(probe.stdout.toString('utf8')) as { streams: { codec_type: string; start_time: string }[] }).streams;
  const startOf = (type: string): number => Number(starts.find((st) => st.codec_type === type)!.start_time);
  const videoStart = startOf('video');
  const audioStart = startOf('audio');
  const video = readFileSync(join(dir, 'v.yuv'));
  const size = i420ByteLength(W, H);
  const bright = (n: number): boolean => video[n * size + (H / 2) * W + W / 2]! > 128;
  const flashes: number[] = [];
  for (let n = 1; n < video.length / size; n++) if (bright(n) && !bright(n - 1)) flashes.push(videoStart + n / FPS);
  const pcmBytes = readFileSync(join(dir, 'a.pcm'));
  const pcm = new Int16Array(pcmBytes.buffer, pcmBytes.byteOffset, pcmBytes.length >> 1);
  // Beep onsets: 2 ms windows whose peak crosses a quarter of the tone's level after 300 ms of quiet.
  const beeps: number[] = [];
  const win = 96;
  let quietSince = 0;
  for (let w = 0; w * win < pcm.length; w++) {
    let peak = 0;
    for (let i = w * win; i < Math.min(pcm.length, (w + 1) * win); i++) peak = Math.max(peak, Math.abs(pcm[i]!));
    const t = audioStart + (w * win) / 48_000;
    if (peak > 1000) {
      if (t - quietSince > 0.3) beeps.push(t);
      quietSince = t;
    }
  }
  // Pair each flash with the nearest beep; the first 2.5 s are the decoders starting (a flash may be cut short), and
  // on a loaded machine their start may reach past that (frames late, a flash seen twice): only flashes of the
  // source's steady beat (one a second, a neighbour 1 s ± 100 ms away) are paired. An A/V offset moves every flash
  // alike, so the beat does not hide it.
  const onBeat = (f: number, i: number) => [flashes[i - 1], flashes[i + 1]].some((o) => o !== undefined && Math.abs(Math.abs(f - o) - 1) < 0.1);
  const offsets = flashes
    .filter((f, i) => f - videoStart >= 2.5 && onBeat(f, i))
    .map((f) => beeps.reduce((best, b) => (Math.abs(b - f) < Math.abs(best - f) ? b : best), Infinity) - f)
    .filter((d) => Math.abs(d) < 0.5);
  t.diagnostic(`flashes ${flashes.map((f) => f.toFixed(3)).join(' ')}`);
  t.diagnostic(`beeps ${beeps.map((b) => b.toFixed(3)).join(' ')}`);
  t.diagnostic(`beep − flash (ms): ${offsets.map((d) => Math.round(d * 1000)).join(' ')}`);
  assert.ok(offsets.length >= 4, `paired ${offsets.length} flashes`);
  // Flashes are seen to the frame (33 ms at 30 fps) and the source's beeps start on 21 ms audio frames, so single
  // pairs scatter; the median is the pipeline's offset.
  const median = [...offsets].sort((x, y) => x - y)[offsets.length >> 1]!;
  assert.ok(Math.abs(median) <= 0.06, `median beep − flash ${Math.round(median * 1000)} ms`);
  // One pair may scatter further when the machine is loaded (the frame clock runs on the real event loop here, and a
  // late tick samples a later frame); a systematic offset shows in the median above.
  assert.ok(offsets.filter((d) => Math.abs(d) > 0.1).length <= 1, 'all pairs but one within 100 ms');
  assert.ok(offsets.every((d) => Math.abs(d) <= 0.2), 'every pair within 200 ms');
});
