import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFPROBE_BIN } from '../../ffmpeg.ts';
import { runChild } from '../../../process/index.ts';
import type { ClosedSlice } from '../../segment-list.ts';
import { mixAudioProfile } from '../audio-profile.ts';
import { hexToYuv } from '../colour.ts';
import { solidI420Frame } from '../i420.ts';
import { sineFrame } from '../testing/tones.ts';
import { MixEncoder } from './mix-encoder.ts';

const canvas = { width: 320, height: 180 };
const FPS = 15;

interface ProbedStream {
  readonly codec_name: string;
  readonly channels?: number;
  readonly sample_rate?: string;
}

async function probe(path: string, args: string[]): Promise<{ streams?: ProbedStream[]; frames?: { key_frame: number }[] }> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-of', 'json', ...args, path], { timeoutMs: 30_000 });
  return JSON.parse(r.stdout.toString('utf8')) as { streams?: ProbedStream[]; frames?: { key_frame: number }[] };
}

test('the encoder cuts slices that each start with a keyframe, with stereo AAC for audio profile 2', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-encoder-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const slices: ClosedSlice[] = [];
  const originMs = Date.UTC(2026, 0, 1);
  const encoder = new MixEncoder(
    { workDir: dir, canvas, fps: FPS, bitrateKbps: 300, audio: mixAudioProfile(2), video: true, sliceSeconds: 1, originMs },
    { onSlice: (s) => slices.push(s) },
  );
  const colours = ['#FF0000', '#00FF00', '#0000FF'].map((c) => solidI420Frame(canvas.width, canvas.height, hexToYuv(c)));
  for (let n = 0; n < 4 * FPS; n++) {
    encoder.writeVideo(colours[n % 3]!.data);
    encoder.writeAudio(sineFrame(440, 3200, 0.3, 2, 's16', n * 3200).samples as Int16Array);
  }
  await encoder.finish();

  assert.ok(slices.length >= 3, `slices: ${slices.length}`);
  assert.equal(slices[0]!.startMs, originMs);
  for (let i = 1; i < slices.length; i++) {
    assert.equal(slices[i]!.startMs, Math.round(slices[i - 1]!.startMs + slices[i - 1]!.durationSec * 1000));
    // Each slice starts on its mark, the time of the frame it starts with (not later by x264's B-frame delay).
    assert.equal(slices[i]!.startMs, originMs + i * 1000, `slice ${i} starts ${slices[i]!.startMs - originMs - i * 1000} ms after its mark`);
  }
  for (const slice of slices) {
    const first = await probe(slice.localPath, ['-select_streams', 'v', '-show_entries', 'frame=key_frame', '-read_intervals', '%+#1']);
    assert.equal(first.frames?.[0]?.key_frame, 1, `${slice.localPath} starts with a keyframe`);
  }
  const streams = (await probe(slices[0]!.localPath, ['-show_streams'])).streams ?? [];
  assert.deepEqual(
    streams.map((s) => [s.codec_name, s.channels ?? null, s.sample_rate ?? null]),
    [
      ['h264', null, null],
      ['aac', 2, '48000'],
    ],
  );
});

test('an audio-only mix (streamTypes 0) has no video track', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-encoder-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const slices: ClosedSlice[] = [];
  const encoder = new MixEncoder(
    { workDir: dir, canvas, fps: FPS, bitrateKbps: 300, audio: mixAudioProfile(0), video: false, sliceSeconds: 1, originMs: 0 },
    { onSlice: (s) => slices.push(s) },
  );
  for (let n = 0; n < 2 * FPS; n++) encoder.writeAudio(sineFrame(440, 3200, 0.3, 1, 's16', n * 3200).samples as Int16Array);
  await encoder.finish();
  assert.ok(slices.length >= 1);
  const streams = (await probe(slices[0]!.localPath, ['-show_streams'])).streams ?? [];
  assert.deepEqual(streams.map((s) => [s.codec_name, s.channels]), [['aac', 1]]);
});
