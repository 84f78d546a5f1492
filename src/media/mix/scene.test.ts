import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hexToYuv, type YuvColour } from './colour.ts';
import { MixCompositor } from './compositor.ts';
import { i420PixelAt, solidI420Frame, type I420Frame } from './i420.ts';
import { layout } from './layout.ts';
import { completeMixLayoutSettings, MIX_LAYOUT } from './layout-settings.ts';
import type { CanvasSize, PixelRect } from './region.ts';
import { EMPTY_ROSTER, type MixRoster, rosterJoin, rosterLayoutUsers, rosterLeave, rosterVideoFrame } from './roster.ts';
import { composeScene, type ScenePictures } from './scene.ts';

const CANVAS: CanvasSize = { width: 640, height: 360 };
const RED = hexToYuv('#FF0000');
const GREEN = hexToYuv('#00FF00');
const BLUE = hexToYuv('#0000FF');
const PINK = hexToYuv('#FF80C0');
const BACKGROUND = hexToYuv('#204060');
const centre = (r: PixelRect): [number, number] => [r.x + (r.width >> 1), r.y + (r.height >> 1)];

function pictures(over: Partial<ScenePictures> = {}): ScenePictures {
  return {
    latestFrames: new Map<string, I420Frame>([
      ['a', solidI420Frame(320, 180, RED)],
      ['b', solidI420Frame(320, 180, GREEN)],
      ['c', solidI420Frame(320, 180, BLUE)],
    ]),
    userImages: new Map(),
    defaultUserImage: null,
    canvasImage: null,
    backgroundColour: BACKGROUND,
    ...over,
  };
}

function roster(uids: readonly string[], sending: readonly string[], atMs = 0): MixRoster {
  let r = EMPTY_ROSTER;
  for (const uid of uids) r = rosterJoin(r, uid);
  for (const uid of sending) r = rosterVideoFrame(r, uid, atMs);
  return r;
}

function colourAt(kind: 0 | 1 | 2, r: MixRoster, now: number, p: ScenePictures, x: number, y: number, maxResolutionUid: string | null = null): YuvColour {
  const regions = layout(kind, CANVAS, rosterLayoutUsers(r, now), { maxResolutionUid });
  const c = new MixCompositor(CANVAS);
  return i420PixelAt(c.compose(c.createCanvasFrame(), composeScene(regions, r, now, p)), x, y);
}

test('floating: an audio-only small window is transparent (user 1 shows through)', () => {
  const r = roster(['a', 'b', 'c'], ['a', 'c']);
  const regions = layout(MIX_LAYOUT.floating, CANVAS, ['a', 'b', 'c']);
  const [bx, by] = centre(regions[1]!.rect);
  const [cx, cy] = centre(regions[2]!.rect);
  assert.deepEqual(colourAt(0, r, 100, pictures(), bx, by), RED, 'b sends no video: a\'s picture');
  assert.deepEqual(colourAt(0, r, 100, pictures(), cx, cy), BLUE);
});

test('best fit and vertical: an audio-only user\'s cell shows the canvas background', () => {
  const r = roster(['a', 'b'], ['a']);
  const cells = layout(MIX_LAYOUT.bestFit, CANVAS, ['a', 'b']);
  assert.deepEqual(colourAt(1, r, 100, pictures(), ...centre(cells[1]!.rect)), BACKGROUND);
  const vertical = layout(MIX_LAYOUT.vertical, CANVAS, ['a', 'b'], { maxResolutionUid: 'b' });
  assert.deepEqual(colourAt(2, r, 100, pictures(), ...centre(vertical[0]!.rect), 'b'), BACKGROUND, 'Large user without video');
  assert.deepEqual(colourAt(2, r, 100, pictures(), ...centre(vertical[1]!.rect), 'b'), RED);
});

test('the 3.5 s rule end to end: last frame, then the default user image; own image wins', () => {
  const r = roster(['a', 'b'], ['a', 'b'], 1_000);
  const cells = layout(MIX_LAYOUT.bestFit, CANVAS, ['a', 'b']);
  const p = pictures({ defaultUserImage: solidI420Frame(64, 64, PINK) });
  assert.deepEqual(colourAt(1, r, 4_499, p, ...centre(cells[1]!.rect)), GREEN, 'stopped 3.499 s ago: last frame');
  assert.deepEqual(colourAt(1, r, 4_500, p, ...centre(cells[1]!.rect)), PINK, 'from 3.5 s: default user image');
  const own = pictures({ defaultUserImage: solidI420Frame(64, 64, PINK), userImages: new Map([['b', { frame: solidI420Frame(10, 10, BLUE), renderMode: 'fit' as const }]]) });
  assert.deepEqual(colourAt(1, r, 4_500, own, ...centre(cells[1]!.rect)), BLUE, 'per-uid image first');
  assert.deepEqual(colourAt(1, r, 60_000, pictures(), ...centre(cells[1]!.rect)), GREEN, 'no image configured: last frame stays');
});

test('a user who leaves: canvas colour in the slot for 3.5 s, then the next user moves up', () => {
  let r = roster(['a', 'b', 'c'], ['a', 'b', 'c'], 0);
  r = rosterLeave(r, 'b', 1_000);
  const cells = layout(MIX_LAYOUT.bestFit, CANVAS, ['a', 'b', 'c']);
  assert.deepEqual(colourAt(1, r, 2_000, pictures({ canvasImage: solidI420Frame(16, 16, PINK) }), ...centre(cells[1]!.rect)), BACKGROUND, 'the colour, not the canvas image');
  // c's frames keep arriving, b is gone from the layout: c now sits in b's old cell.
  r = rosterVideoFrame(r, 'c', 4_400);
  assert.deepEqual(colourAt(1, r, 4_500, pictures(), ...centre(cells[1]!.rect)), BLUE);
});

test('custom layout: a region with alpha over another, a named user absent', () => {
  const settings = completeMixLayoutSettings({
    kind: MIX_LAYOUT.custom,
    customRegions: [
      { x: 0, y: 0, width: 1, height: 1 },
      { uid: 'nobody', x: 0, y: 0, width: 0.5, height: 0.5 },
      { x: 0.5, y: 0, width: 0.5, height: 1, alpha: 0.5 },
    ],
  });
  const r = roster(['a', 'b'], ['a', 'b']);
  const regions = layout(settings.kind, CANVAS, ['a', 'b'], settings);
  const c = new MixCompositor(CANVAS);
  const out = c.compose(c.createCanvasFrame(), composeScene(regions, r, 10, pictures()));
  assert.deepEqual(i420PixelAt(out, 100, 60), RED, 'absent named user: nothing drawn, a shows');
  const blended = i420PixelAt(out, 480, 180);
  assert.ok(Math.abs(blended.y - ((RED.y + GREEN.y + 1) >> 1)) <= 1, `b at alpha 0.5 over a: ${JSON.stringify(blended)}`);
});
