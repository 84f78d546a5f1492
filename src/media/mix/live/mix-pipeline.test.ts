import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FFPROBE_BIN, runFfmpeg } from '../../ffmpeg.ts';
import { runChild } from '../../../process/index.ts';
import type { ClosedSlice } from '../../segment-list.ts';
import { hexToYuv, type YuvColour } from '../colour.ts';
import { type I420Frame, i420ByteLength, i420FromBytes, i420PixelAt, solidI420Frame } from '../i420.ts';
import { completeMixLayoutSettings, MIX_LAYOUT } from '../layout-settings.ts';
import { tonePower } from '../testing/tones.ts';
import { testPipeline } from './testing/pipeline.ts';
import { publishTo, type RtpSource } from './testing/rtp-source.ts';
import { waitUntil } from '../../../testing/wait.ts';

const W = 640;
const H = 360;
const FPS = 15;
const COLOURS = { red: hexToYuv('#FF0000'), blue: hexToYuv('#0000FF'), yellow: hexToYuv('#FFFF00'), green: hexToYuv('#00FF00') };

function near(actual: YuvColour, expected: YuvColour, what: string): void {
  const d = Math.max(Math.abs(actual.y - expected.y), Math.abs(actual.u - expected.u), Math.abs(actual.v - expected.v));
  assert.ok(d <= 14, `${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

async function ffprobeJson(args: string[]): Promise<Record<string, unknown>> {
  const r = await runChild(FFPROBE_BIN, ['-v', 'error', '-of', 'json', ...args], { timeoutMs: 60_000 });
  return JSON.parse(r.stdout.toString("utf8")) as Record<string, unknown>;
}


test('three live publishers: composed at fps through a stall and a layout change, both tones mixed', { timeout: 90_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-live-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const slices: ClosedSlice[] = [];
  const layoutAtFrame: number[] = [];
  const pipeline = testPipeline(
    dir,
    { latencyMs: 300 },
    {
      onSlice: (s) => slices.push(s),
      onFrame: (f) => layoutAtFrame.push(f.regions.length),
    },
  );
  // The canvas background image (plain green) is what a region shows 3.5 s after its user's video stops.
  pipeline.setImages({ canvas: solidI420Frame(64, 36, COLOURS.green), defaultUser: null, users: new Map() });
  for (const uid of ['a', 'b', 'c']) pipeline.join(uid);
  pipeline.start();

  let bVideoOpen = true;
  const sources: RtpSource[] = [];
  t.after(() => Promise.all(sources.map((s) => s.stop())));
  const publish = async (uid: string, kind: 'vp8' | 'h264' | 'opus', extra: { color?: string; toneHz?: number }, open?: () => boolean) => {
    sources.push(await publishTo(pipeline, uid, { kind, ...extra }, open));
  };
  await publish('a', 'vp8', { color: 'red' });
  await publish('a', 'opus', { toneHz: 440 });
  await publish('b', 'vp8', { color: 'blue' }, () => bVideoOpen);
  await publish('b', 'opus', { toneHz: 1000 });
  await publish('c', 'h264', { color: 'yellow' });

  const untilFrame = (n: number) => waitUntil(() => pipeline.framesWritten >= n, { timeoutMs: 60_000, what: `frame ${n}` });
  await waitUntil(() => pipeline.roster.every((e) => e.video.kind === 'sending'), { timeoutMs: 60_000, what: 'every user sending video' });
  const ready = pipeline.framesWritten;
  await untilFrame(ready + FPS);
  bVideoOpen = false; // b stops sending video without leaving (no BYE)
  const stall = pipeline.framesWritten;
  await untilFrame(stall + 2 * FPS);
  pipeline.setLayout(completeMixLayoutSettings({ kind: MIX_LAYOUT.vertical, maxResolutionUid: 'a' }));
  const change = pipeline.framesWritten; // first frame composed with the new layout
  await untilFrame(stall + 70);
  await Promise.all(sources.splice(0).map((s) => s.stop()));
  await pipeline.stop();
  const total = pipeline.framesWritten;

  // One encoder, slices back to back.
  assert.ok(slices.length >= 3, `slices: ${slices.length}`);
  for (let i = 1; i < slices.length; i++) {
    const prev = slices[i - 1]!;
    assert.ok(Math.abs(slices[i]!.startMs - (prev.startMs + prev.durationSec * 1000)) < 80, `slice ${i} follows slice ${i - 1}`);
  }
  const all = join(dir, 'all.ts');
  writeFileSync(all, Buffer.concat(slices.map((s) => readFileSync(s.localPath))));

  const info = (await ffprobeJson(['-show_streams', all])) as { streams: { codec_name: string; width?: number; height?: number; r_frame_rate?: string; sample_rate?: string; channels?: number }[] };
  const video = info.streams.find((s) => s.codec_name === 'h264');
  const audio = info.streams.find((s) => s.codec_name === 'aac');
  assert.ok(video && audio, JSON.stringify(info.streams));
  assert.equal(`${video.width}x${video.height}`, `${W}x${H}`);
  assert.equal(video.r_frame_rate, `${FPS}/1`);
  assert.equal(audio.sample_rate, '48000');
  assert.equal(audio.channels, 1);

  // Every composed frame is in the files, one every 1/fps of media time: the stall cost nothing.
  const packets = (await ffprobeJson(['-select_streams', 'v', '-show_entries', 'packet=pts_time', all])) as { packets: { pts_time: string }[] };
  const pts = packets.packets.map((p) => Number(p.pts_time)).sort((x, y) => x - y);
  assert.equal(pts.length, total);
  for (let i = 1; i < pts.length; i++) assert.ok(Math.abs(pts[i]! - pts[i - 1]! - 1 / FPS) < 0.002, `frame ${i} follows frame ${i - 1} by 1/fps`);

  const rawPath = join(dir, 'all.yuv');
  await runFfmpeg(['-i', all, '-map', '0:v', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', rawPath]);
  const raw = readFileSync(rawPath);
  const size = i420ByteLength(W, H);
  assert.equal(raw.length / size, total);
  const frame = (n: number): I420Frame => i420FromBytes(raw.subarray(n * size, (n + 1) * size), W, H);
  const at = (n: number, x: number, y: number): YuvColour => i420PixelAt(frame(n), x, y);

  // Best fit, three users: a top-left, b top-right, c bottom-left, the empty cell shows the canvas background.
  const live = ready + 5;
  near(at(live, 160, 90), COLOURS.red, 'a in best fit');
  near(at(live, 480, 90), COLOURS.blue, 'b in best fit');
  near(at(live, 160, 270), COLOURS.yellow, 'c in best fit');
  near(at(live, 480, 270), COLOURS.green, 'empty cell');
  // The frame before the change is best fit, the one composed after it vertical (a Large and fitted, b and c small).
  assert.equal(layoutAtFrame[change - 1], 4);
  near(at(change - 1, 480, 270), COLOURS.green, 'best fit until the change');
  near(at(change, 480, 270), COLOURS.red, 'a Large from the next frame');
  near(at(change, 580, 45), COLOURS.blue, 'b small, held (stalled under 3.5 s)');
  near(at(change, 580, 135), COLOURS.yellow, 'c small');
  near(at(change, 256, 10), { y: 16, u: 128, v: 128 }, 'fit bars are black');
  // b stalled at `stall`: 3.5 s later its region shows the background.
  near(at(stall + 62, 580, 45), COLOURS.green, 'b after 3.5 s without video');
  near(at(stall + 62, 256, 180), COLOURS.red, 'a still live');

  // Both users' tones are in the mix while they send; a frequency nobody sends is not.
  const pcmPath = join(dir, 'all.pcm');
  await runFfmpeg(['-i', all, '-map', '0:a', '-f', 's16le', '-ac', '1', '-ar', '48000', pcmPath]);
  const pcmBytes = readFileSync(pcmPath);
  const pcm = new Int16Array(pcmBytes.buffer, pcmBytes.byteOffset, pcmBytes.length >> 1);
  const from = Math.round(((ready + FPS) / FPS) * 48_000);
  const to = Math.min(pcm.length, Math.round(((total - FPS) / FPS) * 48_000));
  const a = tonePower(pcm, 1, 440, from, to);
  const b = tonePower(pcm, 1, 1000, from, to);
  const none = tonePower(pcm, 1, 700, from, to);
  assert.ok(a > 0.002 && b > 0.002, `tones: 440 Hz ${a}, 1000 Hz ${b}`);
  assert.ok(none < Math.min(a, b) / 50, `700 Hz ${none}`);
});

test('a publisher that changes resolution is decoded at the new size with its own aspect ratio', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-resize-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const slices: ClosedSlice[] = [];
  // Vertical without maxResolutionUid and one user: that user fills the canvas, fitted (whole picture, bars).
  const pipeline = testPipeline(
    dir,
    { settings: completeMixLayoutSettings({ kind: MIX_LAYOUT.vertical }), streams: { audio: false, video: true }, latencyMs: 200 },
    { onSlice: (s) => slices.push(s) },
  );
  pipeline.join('a');
  pipeline.start();
  const sources: RtpSource[] = [];
  t.after(() => Promise.all(sources.map((s) => s.stop())));
  const publish = async (options: { color: string; width: number; height: number }) => {
    const source = await publishTo(pipeline, 'a', { kind: 'vp8', ...options });
    sources.push(source);
    return source;
  };
  const wide = await publish({ color: 'red', width: 320, height: 180 });
  await waitUntil(() => pipeline.roster[0]?.video.kind === 'sending', { timeoutMs: 60_000, what: 'the wide picture sending' });
  const before = pipeline.framesWritten + 5;
  // A second of the wide picture (the frame clock's count, not the wall clock's).
  await waitUntil(() => pipeline.framesWritten >= before + FPS, { timeoutMs: 60_000, what: 'a second of the wide picture' });
  await wide.stop();
  // The same user now sends a square picture (a new keyframe with another size, as after a camera switch).
  const decodedBefore = pipeline.decodedVideoFrames;
  await publish({ color: 'blue', width: 240, height: 240 });
  // From the square picture's first decoded frames (a loaded machine took over 2.5 s to start its decoder), 2.5 s.
  await waitUntil(() => pipeline.decodedVideoFrames >= decodedBefore + 5, { timeoutMs: 60_000, what: 'the square picture decoded' });
  const switched = pipeline.framesWritten;
  await waitUntil(() => pipeline.framesWritten >= switched + Math.ceil(2.5 * FPS), { timeoutMs: 60_000, what: '2.5 s of frames after the switch' });
  await Promise.all(sources.splice(0).map((s) => s.stop()));
  await pipeline.stop();

  const all = join(dir, 'all.ts');
  writeFileSync(all, Buffer.concat(slices.map((s) => readFileSync(s.localPath))));
  const rawPath = join(dir, 'all.yuv');
  await runFfmpeg(['-i', all, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', rawPath]);
  const raw = readFileSync(rawPath);
  const size = i420ByteLength(W, H);
  const last = raw.length / size - 3;
  assert.ok(last > switched + FPS, `frames: ${last}`);
  const at = (n: number, x: number, y: number): YuvColour => i420PixelAt(i420FromBytes(raw.subarray(n * size, (n + 1) * size), W, H), x, y);
  near(at(before, 60, 180), COLOURS.red, '16:9 picture fills the 16:9 canvas');
  near(at(last, 320, 180), hexToYuv('#0000FF'), 'square picture in the middle');
  near(at(last, 60, 180), { y: 16, u: 128, v: 128 }, 'square picture fitted: black bars left and right');
});
