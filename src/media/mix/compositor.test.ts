import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { hexToYuv, rgbToYuv, type YuvColour } from './colour.ts';
import { type CompositionLayer, MixCompositor } from './compositor.ts';
import { createI420Frame, i420PixelAt, solidI420Frame, type I420Frame } from './i420.ts';
import { layout } from './layout.ts';
import { MIX_LAYOUT } from './layout-settings.ts';
import type { PixelRect } from './region.ts';
import { ALPHA_OPAQUE, drawPlaneBilinear } from './plane-ops.ts';
import { buildDrawPlan, type ScalingMethod } from './scaling-plan.ts';

const RED = hexToYuv('#FF0000');
const GREEN = hexToYuv('#00FF00');
const BLUE = hexToYuv('#0000FF');
const YELLOW = hexToYuv('#FFFF00');
const WHITE = hexToYuv('#FFFFFF');
const BLACK = hexToYuv('#000000');
const GREY = hexToYuv('#808080');
const METHODS: readonly ScalingMethod[] = ['nearest', 'bilinear'];

const centre = (r: PixelRect): [number, number] => [r.x + (r.width >> 1), r.y + (r.height >> 1)];
const picture = (rect: PixelRect, frame: I420Frame, renderMode: 'crop' | 'fit' = 'crop', alpha = 1): CompositionLayer => ({
  rect,
  alpha,
  content: { kind: 'picture', frame, renderMode },
});

function assertColour(got: YuvColour, want: YuvColour, what: string, tolerance = 0): void {
  const close = Math.abs(got.y - want.y) <= tolerance && Math.abs(got.u - want.u) <= tolerance && Math.abs(got.v - want.v) <= tolerance;
  assert.ok(close, `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

/** A picture of vertical stripes, one colour per stripe, equal widths. */
function stripes(width: number, height: number, colours: readonly YuvColour[]): I420Frame {
  const f = createI420Frame(width, height);
  const cw = (width + 1) >> 1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) f.y[y * width + x] = colours[Math.floor((x * colours.length) / width)]!.y;
  }
  for (let y = 0; y < (height + 1) >> 1; y++) {
    for (let x = 0; x < cw; x++) {
      const c = colours[Math.floor((2 * x * colours.length) / width)]!;
      f.u[y * cw + x] = c.u;
      f.v[y * cw + x] = c.v;
    }
  }
  return f;
}

test('#RRGGBB → BT.601 limited range, as ffmpeg converts rgb24 to yuv420p by default', () => {
  assert.deepEqual(RED, { y: 81, u: 90, v: 240 });
  assert.deepEqual(WHITE, { y: 235, u: 128, v: 128 });
  assert.deepEqual(BLACK, { y: 16, u: 128, v: 128 });
  for (const hex of ['#FF0000', '#00FF00', '#0000FF', '#FF8040', '#123456', '#808080']) {
    const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const input = Buffer.alloc(16 * 16 * 3);
    for (let i = 0; i < 256; i++) input.set(rgb, i * 3);
    const out = spawnSync('ffmpeg', ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '16x16', '-i', 'pipe:0', '-pix_fmt', 'yuv420p', '-f', 'rawvideo', 'pipe:1'], { input });
    assert.equal(out.status, 0, out.stderr.toString());
    const ffmpeg = { y: out.stdout[0]!, u: out.stdout[256]!, v: out.stdout[256 + 64]! };
    assertColour(rgbToYuv({ r: rgb[0]!, g: rgb[1]!, b: rgb[2]! }), ffmpeg, hex, 1);
  }
});

for (const method of METHODS) {
  describe(`compositor (${method})`, () => {
    test('each region centre shows its user\'s colour (best fit, 4 users, sources of different sizes)', () => {
      const canvas = { width: 640, height: 360 };
      const c = new MixCompositor(canvas, method);
      const regions = layout(MIX_LAYOUT.bestFit, canvas, ['1', '2', '3', '4']);
      const sources = [solidI420Frame(320, 180, RED), solidI420Frame(640, 360, GREEN), solidI420Frame(321, 179, BLUE), solidI420Frame(160, 120, YELLOW)];
      const out = c.compose(c.createCanvasFrame(), {
        background: { colour: GREY, image: null },
        layers: regions.map((r, i) => picture(r.rect, sources[i]!)),
      });
      [RED, GREEN, BLUE, YELLOW].forEach((want, i) => {
        const r = regions[i]!.rect;
        assertColour(i420PixelAt(out, ...centre(r)), want, `region ${i} centre`);
        assertColour(i420PixelAt(out, r.x, r.y), want, `region ${i} top-left`);
        assertColour(i420PixelAt(out, r.x + r.width - 1, r.y + r.height - 1), want, `region ${i} bottom-right`);
      });
    });

    test('crop shows the centre of a wider picture; fit shows all of it between black bars', () => {
      const c = new MixCompositor({ width: 400, height: 200 }, method);
      const source = stripes(600, 200, [GREEN, RED, BLUE]); // 3:1, middle third red
      const region = { x: 0, y: 0, width: 200, height: 200 };
      const cropped = c.compose(c.createCanvasFrame(), { background: { colour: GREY, image: null }, layers: [picture(region, source, 'crop')] });
      for (const x of [1, 100, 198]) assertColour(i420PixelAt(cropped, x, 100), RED, `crop x=${x}`);
      assertColour(i420PixelAt(cropped, 300, 100), GREY, 'outside the region: background');

      const fitted = c.compose(c.createCanvasFrame(), { background: { colour: GREY, image: null }, layers: [picture(region, source, 'fit')] });
      // 600×200 into 200×200: picture 200×66 (even: 66) centred → rows 66…131, bars above and below.
      assertColour(i420PixelAt(fitted, 100, 10), BLACK, 'fit: top bar is black, not the background');
      assertColour(i420PixelAt(fitted, 100, 190), BLACK, 'fit: bottom bar');
      assertColour(i420PixelAt(fitted, 20, 100), GREEN, 'fit: left third visible');
      assertColour(i420PixelAt(fitted, 100, 100), RED, 'fit: middle');
      assertColour(i420PixelAt(fitted, 180, 100), BLUE, 'fit: right third visible');

      const tall = c.compose(c.createCanvasFrame(), { background: { colour: GREY, image: null }, layers: [picture({ x: 200, y: 0, width: 200, height: 200 }, solidI420Frame(90, 160, WHITE), 'fit')] });
      assertColour(i420PixelAt(tall, 210, 100), BLACK, 'fit a portrait picture: left bar');
      assertColour(i420PixelAt(tall, 300, 100), WHITE, 'fit a portrait picture: middle');
      assertColour(i420PixelAt(tall, 395, 100), BLACK, 'fit a portrait picture: right bar');
    });

    test('alpha 0.5 over the background averages the two', () => {
      const c = new MixCompositor({ width: 64, height: 64 }, method);
      const out = c.compose(c.createCanvasFrame(), {
        background: { colour: BLACK, image: null },
        layers: [picture({ x: 0, y: 0, width: 32, height: 64 }, solidI420Frame(32, 32, WHITE), 'crop', 0.5), picture({ x: 32, y: 0, width: 32, height: 64 }, solidI420Frame(8, 8, RED), 'crop', 0)],
      });
      assertColour(i420PixelAt(out, 16, 32), { y: (235 + 16 + 1) >> 1, u: 128, v: 128 }, 'half white over black', 1);
      assertColour(i420PixelAt(out, 48, 32), BLACK, 'alpha 0 draws nothing');
    });

    test('odd canvas and source sizes: every pixel up to the last row and column is drawn', () => {
      const canvas = { width: 641, height: 361 };
      const c = new MixCompositor(canvas, method);
      const regions = layout(MIX_LAYOUT.bestFit, canvas, ['a', 'b']);
      const out = c.compose(c.createCanvasFrame(), {
        background: { colour: GREY, image: null },
        layers: [picture(regions[0]!.rect, solidI420Frame(33, 17, RED)), picture(regions[1]!.rect, solidI420Frame(1, 1, BLUE))],
      });
      assertColour(i420PixelAt(out, 0, 0), RED, 'first pixel');
      assertColour(i420PixelAt(out, 319, 360), RED, 'left cell bottom-right');
      assertColour(i420PixelAt(out, 320, 0), BLUE, 'right cell first column');
      assertColour(i420PixelAt(out, 640, 360), BLUE, 'last pixel (odd canvas)');
    });

    test('background image is crop-to-fill; a canvas-background layer shows it through a picture', () => {
      const c = new MixCompositor({ width: 200, height: 100 }, method);
      const image = stripes(300, 300, [RED, GREEN, BLUE]); // square: cropped to the middle band vertically only
      const out = c.compose(c.createCanvasFrame(), {
        background: { colour: GREY, image },
        layers: [
          picture({ x: 0, y: 0, width: 200, height: 100 }, solidI420Frame(16, 16, WHITE)),
          { rect: { x: 150, y: 0, width: 50, height: 100 }, alpha: 1, content: { kind: 'canvas-background' } },
          { rect: { x: 0, y: 0, width: 20, height: 20 }, alpha: 1, content: { kind: 'colour', colour: YELLOW } },
        ],
      });
      assertColour(i420PixelAt(out, 100, 50), WHITE, 'picture over the image');
      assertColour(i420PixelAt(out, 190, 50), BLUE, 'the image shows through, its right third');
      assertColour(i420PixelAt(out, 10, 10), YELLOW, 'a colour layer');
    });
  });
}

test('bilinear blends between source pixels; nearest does not', () => {
  const source = stripes(2, 2, [BLACK, WHITE]);
  const region = { x: 0, y: 0, width: 8, height: 2 };
  const lumaRow = (method: ScalingMethod) => {
    const c = new MixCompositor({ width: 8, height: 2 }, method);
    const out = c.compose(c.createCanvasFrame(), { background: { colour: GREY, image: null }, layers: [picture(region, source, 'crop')] });
    return [...out.y.subarray(0, 8)];
  };
  assert.deepEqual(lumaRow('nearest'), [16, 16, 16, 16, 235, 235, 235, 235]);
  const smooth = lumaRow('bilinear');
  assert.ok(smooth.some((v) => v > 16 && v < 235), `intermediate values expected: ${smooth}`);
  assert.deepEqual([...smooth].sort((a, b) => a - b), smooth, 'monotonic from black to white');
});

test('bilinear at exactly half size (the 2×2 mean fast path) gives the same bytes as the weighted loop', () => {
  // Noise, so that every one of the four samples matters.
  const source = createI420Frame(64, 36);
  let seed = 7;
  for (let i = 0; i < source.data.length; i++) source.data[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const plan = buildDrawPlan(64, 36, { x: 4, y: 2, width: 32, height: 18 }, 'crop', 'bilinear');
  assert.ok(plan.luma!.halves && plan.chroma!.halves, 'the plan takes the fast path');
  for (const alpha of [ALPHA_OPAQUE, 100]) {
    for (const [map, plane] of [[plan.luma!, 'y'], [plan.chroma!, 'u']] as const) {
      const stride = plane === 'y' ? 40 : 20;
      const fast = new Uint8Array(stride * 24).fill(50);
      const weighted = fast.slice();
      drawPlaneBilinear(fast, stride, source[plane], map, alpha);
      drawPlaneBilinear(weighted, stride, source[plane], { ...map, halves: false }, alpha);
      assert.deepEqual(fast, weighted, `${plane} plane, alpha ${alpha}`);
    }
  }
  assert.ok(!buildDrawPlan(64, 36, { x: 0, y: 0, width: 40, height: 18 }, 'crop', 'bilinear').luma!.halves, 'not for other factors');
});

test('scaling tables are reused frame after frame; the wrong target size is refused', () => {
  const c = new MixCompositor({ width: 64, height: 64 });
  const frame = solidI420Frame(32, 32, RED);
  const target = c.createCanvasFrame();
  const composition = { background: { colour: BLACK, image: null }, layers: [picture({ x: 0, y: 0, width: 32, height: 32 }, frame)] };
  c.compose(target, composition);
  const before = target.data.slice();
  c.compose(target, composition);
  assert.deepEqual(target.data, before, 'same composition, same bytes');
  assert.throws(() => c.compose(createI420Frame(32, 32), composition), /target must be 64×64/);
});

test('a composed canvas survives the encoder: x264 → decode → RGB at each region centre', () => {
  const canvas = { width: 320, height: 180 };
  const c = new MixCompositor(canvas);
  const regions = layout(MIX_LAYOUT.bestFit, canvas, ['1', '2', '3', '4']);
  const rgbs: [number, number, number][] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]];
  const out = c.compose(c.createCanvasFrame(), {
    background: { colour: BLACK, image: null },
    layers: regions.map((r, i) => picture(r.rect, solidI420Frame(160, 90, rgbToYuv({ r: rgbs[i]![0], g: rgbs[i]![1], b: rgbs[i]![2] })))),
  });
  const run = spawnSync(
    'ffmpeg',
    ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', '320x180', '-i', 'pipe:0', '-c:v', 'libx264', '-preset', 'veryfast', '-f', 'h264', 'pipe:1'],
    { input: out.data },
  );
  assert.equal(run.status, 0, run.stderr.toString());
  const decoded = spawnSync('ffmpeg', ['-v', 'error', '-f', 'h264', '-i', 'pipe:0', '-pix_fmt', 'rgb24', '-f', 'rawvideo', 'pipe:1'], { input: run.stdout });
  assert.equal(decoded.status, 0, decoded.stderr.toString());
  regions.forEach((r, i) => {
    const [x, y] = centre(r.rect);
    const at = (y * 320 + x) * 3;
    const got = [...decoded.stdout.subarray(at, at + 3)];
    got.forEach((v, k) => assert.ok(Math.abs(v - rgbs[i]![k]!) <= 12, `region ${i}: decoded ${got}, sent ${rgbs[i]}`));
  });
});
