import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFfmpeg } from '../../ffmpeg.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeSize, drawnSize, h264SpsSize, vp8KeyframeSize } from './video-size.ts';

/** NAL units of an Annex B stream. */
function nalUnits(bytes: Uint8Array): Uint8Array[] {
  const starts: number[] = [];
  for (let i = 0; i + 3 <= bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) starts.push(i + 3);
  }
  return starts.map((s, k) => {
    let end = k + 1 < starts.length ? starts[k + 1]! - 3 : bytes.length;
    if (end > s && bytes[end - 1] === 0) end--;
    return bytes.subarray(s, end);
  });
}

test('picture sizes come from real VP8 keyframes and H.264 SPS (single, STAP-A, FU-A)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mix-size-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const source = ['-f', 'lavfi', '-i', 'testsrc=s=424x240:r=15', '-frames:v', '1'];
  await runFfmpeg([...source, '-c:v', 'libvpx', '-f', 'ivf', join(dir, 'a.ivf')]);
  await runFfmpeg([...source, '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-profile:v', 'high', '-f', 'h264', join(dir, 'a.h264')]);
  await runFfmpeg([...source, '-vf', 'scale=1280:720', '-pix_fmt', 'yuv420p', '-c:v', 'libx264', '-profile:v', 'baseline', '-f', 'h264', join(dir, 'b.h264')]);

  const ivf = readFileSync(join(dir, 'a.ivf'));
  const vp8Frame = ivf.subarray(32 + 12);
  assert.deepEqual(vp8KeyframeSize(Uint8Array.of(0x10, ...vp8Frame)), { width: 424, height: 240 });
  // With the extended descriptor (15-bit picture id) too; a continuation packet starts nothing.
  assert.deepEqual(vp8KeyframeSize(Uint8Array.of(0x90, 0x80, 0x81, 0x23, ...vp8Frame)), { width: 424, height: 240 });
  assert.equal(vp8KeyframeSize(Uint8Array.of(0x00, ...vp8Frame)), undefined);

  const high = nalUnits(readFileSync(join(dir, 'a.h264'))).find((n) => (n[0]! & 0x1f) === 7)!;
  assert.deepEqual(h264SpsSize(high), { width: 424, height: 240 });
  const baseline = nalUnits(readFileSync(join(dir, 'b.h264')));
  const sps = baseline.find((n) => (n[0]! & 0x1f) === 7)!;
  const pps = baseline.find((n) => (n[0]! & 0x1f) === 8)!;
  const stapA = Uint8Array.of(24, sps.length >> 8, sps.length & 0xff, ...sps, pps.length >> 8, pps.length & 0xff, ...pps);
  assert.deepEqual(h264SpsSize(stapA), { width: 1280, height: 720 });
  const fuA = Uint8Array.of((sps[0]! & 0xe0) | 28, 0x80 | 7, ...sps.subarray(1));
  assert.deepEqual(h264SpsSize(fuA), { width: 1280, height: 720 });
  assert.equal(h264SpsSize(pps), undefined);
});

test('decoded frames keep the source size unless larger than the bound, then shrink with the aspect kept', () => {
  const canvas = { width: 640, height: 360 };
  assert.deepEqual(decodeSize({ width: 320, height: 180 }, canvas), { width: 320, height: 180 });
  assert.deepEqual(decodeSize({ width: 1920, height: 1080 }, canvas), { width: 640, height: 360 });
  assert.deepEqual(decodeSize({ width: 720, height: 1280 }, canvas), { width: 202, height: 360 });
});

test('a picture is decoded at the size it is drawn at: covering its region (crop) or inside it (fit), never enlarged', () => {
  const source = { width: 640, height: 360 };
  // Four tiles of a 640×360 best fit: exactly half.
  assert.deepEqual(drawnSize(source, { width: 320, height: 180 }, 'crop'), { width: 320, height: 180 });
  // A 4:3 source covering a 16:9 tile is cut at the top and bottom; fitted, it leaves bars at the sides.
  assert.deepEqual(drawnSize({ width: 640, height: 480 }, { width: 320, height: 180 }, 'crop'), { width: 320, height: 240 });
  assert.deepEqual(drawnSize({ width: 640, height: 480 }, { width: 320, height: 180 }, 'fit'), { width: 240, height: 180 });
  // The vertical layout's Large (fit) and a small (crop): the scale-setting side is the region's, the other even.
  assert.deepEqual(drawnSize(source, { width: 512, height: 360 }, 'fit'), { width: 512, height: 288 });
  assert.deepEqual(drawnSize(source, { width: 128, height: 90 }, 'crop'), { width: 160, height: 90 });
  assert.deepEqual(drawnSize({ width: 320, height: 180 }, { width: 128, height: 72 }, 'crop'), { width: 128, height: 72 });
  // Never larger than the source: the compositor enlarges.
  assert.deepEqual(drawnSize({ width: 240, height: 240 }, { width: 320, height: 180 }, 'crop'), { width: 240, height: 240 });
  assert.deepEqual(drawnSize(source, { width: 640, height: 360 }, 'fit'), source);
  // An odd region edge (an odd canvas) still gives an even size.
  assert.deepEqual(drawnSize(source, { width: 321, height: 181 }, 'crop'), { width: 322, height: 180 });
});
