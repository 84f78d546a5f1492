import assert from 'node:assert/strict';
import { test } from 'node:test';
import { h264SpsSize } from './video-size.ts';

// SPS units as libx264 writes them (ffmpeg, one frame of a colour source), emulation prevention bytes included.
const SPS: [string, string, { width: number; height: number }][] = [
  ['baseline 320×180 (cropped from 12 macroblock rows)', '6742c00cd901419f9f0110000003001000000301e0f142a480', { width: 320, height: 180 }],
  ['baseline 640×360', '6742c016d900a02ff970110000030001000003001e0f162e48', { width: 640, height: 360 }],
  ['baseline 1280×720', '6742c01fd9005005bb0110000003001000000301e0f1832480', { width: 1280, height: 720 }],
  ['baseline 640×480 (no cropping)', '6742c016d900a03db0110000030001000003001e0f162e48', { width: 640, height: 480 }],
  ['high profile 640×360 (chroma format and scaling list flags)', '67640016acd940a02ff970110000030001000003001e0f162d96', { width: 640, height: 360 }],
];

test('H.264 SPS: the picture size, cropping applied', () => {
  for (const [what, hex, size] of SPS) assert.deepEqual(h264SpsSize(Buffer.from(hex, 'hex')), size, what);
});

test('H.264 SPS: another unit or a truncated one has no size', () => {
  assert.equal(h264SpsSize(Buffer.from('68ce3c80', 'hex')), undefined, 'a PPS');
  assert.equal(h264SpsSize(Buffer.from('6742c016', 'hex')), undefined, 'cut after the level');
});
