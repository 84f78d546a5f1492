import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FractionRect } from './geometry.ts';
import { layout } from './layout.ts';
import { completeMixLayoutSettings, MIX_LAYOUT } from './layout-settings.ts';
import type { CanvasSize, MixRegion, PixelRect } from './region.ts';

const LANDSCAPE: CanvasSize = { width: 640, height: 360 };
const PORTRAIT: CanvasSize = { width: 360, height: 640 };
const CANVASES: readonly CanvasSize[] = [LANDSCAPE, PORTRAIT, { width: 1920, height: 1080 }, { width: 642, height: 362 }, { width: 641, height: 359 }];
const users = (n: number): string[] => Array.from({ length: n }, (_, i) => String(1001 + i));

// ---- Expected geometry, written from the documented tables (fractions of the canvas) ----

const FLOAT_X = [0.012, 0.259, 0.506, 0.753];
const FLOAT_Y = [0.753, 0.506, 0.259, 0.012];
function expectedFloating(n: number): FractionRect[] {
  const shown = Math.min(n, 17);
  const out: FractionRect[] = [];
  if (shown >= 1) out.push({ x: 0, y: 0, width: 1, height: 1 });
  for (let k = 0; k < shown - 1; k++) out.push({ x: FLOAT_X[k % 4]!, y: FLOAT_Y[Math.floor(k / 4)]!, width: 0.235, height: 0.235 });
  return out;
}

/** Best fit bands: [first N, last N, columns, rows]. */
const BEST_FIT_BANDS: readonly (readonly [number, number, number, number])[] = [
  [1, 1, 1, 1],
  [2, 2, 2, 1],
  [3, 4, 2, 2],
  [5, 9, 3, 3],
  [10, 16, 4, 4],
];
function expectedBestFit(n: number): FractionRect[] {
  const shown = Math.min(n, 17);
  if (shown === 17) {
    const xs = [0.1, 0.3, 0.5, 0.7];
    const cells = Array.from({ length: 16 }, (_, i) => ({ x: xs[i % 4]!, y: 0.2 * Math.floor(i / 4), width: 0.2, height: 0.2 }));
    return [...cells, { x: 0.4, y: 0.8, width: 0.2, height: 0.2 }];
  }
  const band = BEST_FIT_BANDS.find(([lo, hi]) => shown >= lo && shown <= hi)!;
  const [, , cols, rows] = band;
  return Array.from({ length: cols * rows }, (_, i) => ({ x: (i % cols) / cols, y: Math.floor(i / cols) / rows, width: 1 / cols, height: 1 / rows }));
}

/** Vertical bands by N (Large included): [first N, last N, small columns, small w, small h, Large w, capacity]. */
const VERTICAL_BANDS: readonly (readonly [number, number, number, number, number, number, number])[] = [
  [1, 5, 1, 1 / 5, 1 / 4, 4 / 5, 4],
  [6, 7, 1, 1 / 7, 1 / 6, 6 / 7, 6],
  [8, 9, 1, 1 / 9, 1 / 8, 8 / 9, 8],
  [10, 17, 2, 1 / 10, 1 / 8, 0.8, 16],
];
/** Large first, then every small slot: smalls 1–8 in the right-most column, 9–16 in the inner one, top to bottom. */
function expectedVertical(nWithLarge: number): FractionRect[] {
  const band = VERTICAL_BANDS.find(([lo, hi]) => Math.min(nWithLarge, 17) >= lo && Math.min(nWithLarge, 17) <= hi)!;
  const [, , cols, w, h, largeW, capacity] = band;
  const out: FractionRect[] = [{ x: 0, y: 0, width: largeW, height: 1 }];
  const perColumn = capacity / cols;
  for (let k = 0; k < capacity; k++) {
    const column = Math.floor(k / perColumn); // 0 = outer
    out.push({ x: 1 - (column + 1) * w, y: (k % perColumn) * h, width: w, height: h });
  }
  return out;
}

function assertNear(rect: PixelRect, f: FractionRect, canvas: CanvasSize, what: string): void {
  const edges: [number, number, string][] = [
    [rect.x, f.x * canvas.width, 'left'],
    [rect.y, f.y * canvas.height, 'top'],
    [rect.x + rect.width, (f.x + f.width) * canvas.width, 'right'],
    [rect.y + rect.height, (f.y + f.height) * canvas.height, 'bottom'],
  ];
  for (const [got, want, edge] of edges) {
    assert.ok(Math.abs(got - want) <= 1, `${what}: ${edge} edge ${got} px, expected ≈${want.toFixed(2)} px`);
  }
}

function assertI420Friendly(regions: readonly MixRegion[], canvas: CanvasSize, what: string): void {
  for (const r of regions) {
    const { x, y, width, height } = r.rect;
    assert.ok(x >= 0 && y >= 0 && x + width <= canvas.width && y + height <= canvas.height, `${what}: inside the canvas`);
    assert.equal(x % 2, 0, `${what}: even x`);
    assert.equal(y % 2, 0, `${what}: even y`);
    assert.ok(width % 2 === 0 || x + width === canvas.width, `${what}: even width unless it ends at the canvas edge`);
    assert.ok(height % 2 === 0 || y + height === canvas.height, `${what}: even height unless it ends at the canvas edge`);
  }
}

function overlapArea(a: PixelRect, b: PixelRect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** Regions tile their bounding area: no overlaps, and areas add up to the union (no gaps inside). */
function assertTiles(regions: readonly MixRegion[], canvas: CanvasSize, coversCanvas: boolean, what: string): void {
  for (let i = 0; i < regions.length; i++) {
    for (let j = i + 1; j < regions.length; j++) assert.equal(overlapArea(regions[i]!.rect, regions[j]!.rect), 0, `${what}: regions ${i} and ${j} overlap`);
  }
  if (coversCanvas) {
    const area = regions.reduce((s, r) => s + r.rect.width * r.rect.height, 0);
    assert.equal(area, canvas.width * canvas.height, `${what}: regions cover the canvas without gaps`);
  }
}

describe('predefined layouts, N = 1..18, against the documented geometry', () => {
  for (const canvas of CANVASES) {
    const c = `${canvas.width}×${canvas.height}`;
    test(`floating on ${c}`, () => {
      for (let n = 1; n <= 18; n++) {
        const regions = layout(MIX_LAYOUT.floating, canvas, users(n));
        const want = expectedFloating(n);
        assert.equal(regions.length, want.length, `N=${n}: region count`);
        regions.forEach((r, i) => {
          assertNear(r.rect, want[i]!, canvas, `floating N=${n} region ${i}`);
          assert.equal(r.uid, users(n)[i], 'join order');
          assert.equal(r.renderMode, 'crop');
          assert.equal(r.zOrder, i);
          assert.equal(r.withoutPicture, i === 0 ? 'background' : 'transparent', 'audio-only small windows are transparent');
        });
        assertI420Friendly(regions, canvas, `floating N=${n}`);
        assertTiles(regions.slice(1), canvas, false, `floating small windows N=${n}`);
      }
    });

    test(`best fit on ${c}`, () => {
      for (let n = 1; n <= 18; n++) {
        const regions = layout(MIX_LAYOUT.bestFit, canvas, users(n));
        const want = expectedBestFit(n);
        assert.equal(regions.length, want.length, `N=${n}: cell count`);
        regions.forEach((r, i) => {
          assertNear(r.rect, want[i]!, canvas, `best fit N=${n} cell ${i}`);
          assert.equal(r.uid, i < Math.min(n, 17) ? users(n)[i] : null, 'row by row in join order, spare cells empty');
          assert.equal(r.renderMode, 'crop');
          assert.equal(r.withoutPicture, 'background');
        });
        assertI420Friendly(regions, canvas, `best fit N=${n}`);
        assertTiles(regions, canvas, n < 17, `best fit N=${n}`);
      }
    });

    test(`vertical with maxResolutionUid in the channel on ${c}`, () => {
      for (let n = 1; n <= 18; n++) {
        const all = users(n);
        const large = all[Math.min(2, n - 1)]!; // the third joiner (or the last one) is the Large user
        const regions = layout(MIX_LAYOUT.vertical, canvas, all, { maxResolutionUid: large });
        const want = expectedVertical(n);
        assert.equal(regions.length, want.length, `N=${n}: Large + small slots`);
        const smalls = all.filter((u) => u !== large);
        regions.forEach((r, i) => {
          assertNear(r.rect, want[i]!, canvas, `vertical N=${n} region ${i}`);
          assert.equal(r.uid, i === 0 ? large : (smalls.slice(0, 16)[i - 1] ?? null));
          assert.equal(r.renderMode, i === 0 ? 'fit' : 'crop', 'Large fits, smalls crop');
          assert.equal(r.withoutPicture, 'background');
        });
        assertI420Friendly(regions, canvas, `vertical N=${n}`);
        assertTiles(regions, canvas, true, `vertical N=${n}`);
      }
    });
  }
});

describe('vertical layout: maxResolutionUid absent or not in the channel', () => {
  test('no maxResolutionUid: a lone user fills the canvas (fit); from 2 users Large shows the background', () => {
    const [one] = layout(MIX_LAYOUT.vertical, LANDSCAPE, ['7']);
    assert.deepEqual(one, { uid: '7', rect: { x: 0, y: 0, width: 640, height: 360 }, renderMode: 'fit', alpha: 1, zOrder: 0, withoutPicture: 'background' });
    for (let n = 2; n <= 18; n++) {
      const regions = layout(MIX_LAYOUT.vertical, LANDSCAPE, users(n));
      assert.equal(regions[0]!.uid, null, `N=${n}: Large is empty`);
      const want = expectedVertical(n + 1); // every user is a small, the empty Large still counts
      assert.equal(regions.length, want.length);
      regions.forEach((r, i) => assertNear(r.rect, want[i]!, LANDSCAPE, `N=${n} region ${i}`));
      assert.deepEqual(
        regions.slice(1).flatMap((r) => (r.uid === null ? [] : [r.uid])),
        users(n).slice(0, 16),
      );
    }
  });

  test('maxResolutionUid not in the channel: Large empty, users on the right, even a lone user', () => {
    const regions = layout(MIX_LAYOUT.vertical, LANDSCAPE, ['7'], { maxResolutionUid: '99' });
    assert.equal(regions[0]!.uid, null);
    assert.deepEqual(regions[0]!.rect, { x: 0, y: 0, width: 512, height: 360 });
    assert.equal(regions[1]!.uid, '7');
    assert.deepEqual(regions[1]!.rect, { x: 512, y: 0, width: 128, height: 90 });
  });

  test('ten to seventeen users: smalls 1–8 in the outer column, 9–16 in the inner one (pixels, 640×360)', () => {
    const regions = layout(MIX_LAYOUT.vertical, LANDSCAPE, users(12), { maxResolutionUid: '1001' });
    assert.deepEqual(regions[0]!.rect, { x: 0, y: 0, width: 512, height: 360 });
    assert.deepEqual(regions[1]!.rect, { x: 576, y: 0, width: 64, height: 46 }, 'small 1: outer column, top (45 px rows round to even edges: 46, 44, …)');
    assert.deepEqual(regions[8]!.rect, { x: 576, y: 316, width: 64, height: 44 }, 'small 8: outer column, bottom');
    assert.deepEqual(regions[9]!.rect, { x: 512, y: 0, width: 64, height: 46 }, 'small 9: inner column, top');
    assert.equal(regions[11]!.uid, '1012');
    assert.equal(regions[12]!.uid, null);
  });

  test('the Large user joining late still takes Large; 16 smalls at most', () => {
    const all = users(20);
    const regions = layout(MIX_LAYOUT.vertical, LANDSCAPE, all, { maxResolutionUid: '1020' });
    assert.equal(regions[0]!.uid, '1020');
    assert.deepEqual(regions.slice(1).map((r) => r.uid), all.slice(0, 16));
  });
});

describe('join order, leaving and the 17-user cap', () => {
  test('floating: when user 1 leaves, user 2 becomes full canvas and everyone moves up one slot', () => {
    const before = layout(MIX_LAYOUT.floating, LANDSCAPE, ['a', 'b', 'c', 'd']);
    const after = layout(MIX_LAYOUT.floating, LANDSCAPE, ['b', 'c', 'd']);
    assert.equal(after[0]!.uid, 'b');
    assert.deepEqual(after[0]!.rect, before[0]!.rect);
    assert.deepEqual(after[1]!.rect, before[1]!.rect);
    assert.equal(after[1]!.uid, 'c');
  });

  test('vertical: small k leaves, small k+1 takes its slot', () => {
    const before = layout(MIX_LAYOUT.vertical, LANDSCAPE, ['L', 's1', 's2', 's3'], { maxResolutionUid: 'L' });
    const after = layout(MIX_LAYOUT.vertical, LANDSCAPE, ['L', 's1', 's3'], { maxResolutionUid: 'L' });
    assert.equal(after[2]!.uid, 's3');
    assert.deepEqual(after[2]!.rect, before[2]!.rect);
    assert.equal(after[3]!.uid, null);
  });

  test('only the first 17 are drawn; when one leaves, the 18th joiner moves in', () => {
    const all = users(18);
    for (const kind of [MIX_LAYOUT.floating, MIX_LAYOUT.bestFit]) {
      const drawn = layout(kind, LANDSCAPE, all).flatMap((r) => (r.uid ? [r.uid] : []));
      assert.deepEqual(drawn, all.slice(0, 17), `layout ${kind}`);
      const afterLeave = layout(kind, LANDSCAPE, all.filter((u) => u !== '1003')).flatMap((r) => (r.uid ? [r.uid] : []));
      assert.ok(afterLeave.includes('1018'), `layout ${kind}: the waiting user is drawn`);
      assert.equal(afterLeave.length, 17);
    }
  });

  test('no users: no regions', () => {
    for (const kind of [MIX_LAYOUT.floating, MIX_LAYOUT.bestFit, MIX_LAYOUT.vertical, MIX_LAYOUT.activeSpeaker]) {
      assert.deepEqual(layout(kind, LANDSCAPE, [], { maxResolutionUid: '1' }), []);
    }
  });

  test('bad canvas and unknown kinds are refused', () => {
    assert.throws(() => layout(MIX_LAYOUT.floating, { width: 0, height: 360 }, ['a']), /canvas/);
    assert.throws(() => layout(7 as never, LANDSCAPE, ['a']), /unknown mixedVideoLayout 7/);
  });
});

describe('custom layout', () => {
  const settings = completeMixLayoutSettings({
    kind: MIX_LAYOUT.custom,
    customRegions: [
      { uid: 'host', x: 0, y: 0, width: 1, height: 0.5, renderMode: 'fit' },
      { x: 0, y: 0.5, width: 0.5, height: 0.5, alpha: 0.5 },
      { x: 0.5, y: 0.5, width: 0.5, height: 0.5, renderMode: 'fit' },
    ],
  });

  test('uid entries show that user; uid-less entries go to the others in join order', () => {
    const regions = layout(settings.kind, LANDSCAPE, ['g1', 'host', 'g2', 'g3'], settings);
    assert.deepEqual(regions.map((r) => r.uid), ['host', 'g1', 'g2']);
    assert.deepEqual(regions.map((r) => r.rect), [
      { x: 0, y: 0, width: 640, height: 180 },
      { x: 0, y: 180, width: 320, height: 180 },
      { x: 320, y: 180, width: 320, height: 180 },
    ]);
    assert.deepEqual(regions.map((r) => r.renderMode), ['fit', 'crop', 'fit']);
    assert.deepEqual(regions.map((r) => r.alpha), [1, 0.5, 1]);
    assert.deepEqual(regions.map((r) => r.zOrder), [0, 1, 2], 'later entries draw on top');
  });

  test('an absent named user leaves its region empty and is not replaced by a guest', () => {
    const regions = layout(settings.kind, LANDSCAPE, ['g1'], settings);
    assert.deepEqual(regions.map((r) => r.uid), [null, 'g1', null]);
  });

  test('a guest leaving hands its region to the next guest', () => {
    const regions = layout(settings.kind, LANDSCAPE, ['host', 'g2', 'g3'], settings);
    assert.deepEqual(regions.map((r) => r.uid), ['host', 'g2', 'g3']);
  });

  test('pixel edges of entries that share a fraction meet exactly', () => {
    const third = completeMixLayoutSettings({
      kind: MIX_LAYOUT.custom,
      customRegions: [0, 1, 2].map((i) => ({ x: Number((i * 0.333333).toFixed(6)), y: 0, width: 0.333333, height: 1 })),
    });
    const regions = layout(third.kind, { width: 641, height: 361 }, ['a', 'b', 'c'], third);
    assert.equal(regions[0]!.rect.x + regions[0]!.rect.width, regions[1]!.rect.x);
    assert.equal(regions[1]!.rect.x + regions[1]!.rect.width, regions[2]!.rect.x);
  });
});

describe('active speaker layout (extension 100)', () => {
  test('landscape: speaker in the main region on the left (fit), the others in a strip on the right', () => {
    const regions = layout(MIX_LAYOUT.activeSpeaker, LANDSCAPE, ['a', 'b', 'c'], { activeSpeakerUid: 'b' });
    assert.equal(regions[0]!.uid, 'b');
    assert.equal(regions[0]!.renderMode, 'fit');
    assert.deepEqual(regions[0]!.rect, { x: 0, y: 0, width: 512, height: 360 });
    assert.deepEqual(regions.slice(1, 3).map((r) => [r.uid, r.rect.x]), [['a', 512], ['c', 512]]);
  });

  test('portrait: main on top, strip along the bottom', () => {
    const regions = layout(MIX_LAYOUT.activeSpeaker, PORTRAIT, ['a', 'b', 'c'], { activeSpeakerUid: 'c' });
    assert.equal(regions[0]!.uid, 'c');
    assert.deepEqual(regions[0]!.rect, { x: 0, y: 0, width: 360, height: 512 });
    assert.deepEqual(regions[1]!.rect, { x: 0, y: 512, width: 90, height: 128 });
    assertTiles(regions, PORTRAIT, true, 'portrait active speaker');
  });

  test('no speaker yet, or the speaker left: the first joiner is main; alone: full canvas', () => {
    assert.equal(layout(MIX_LAYOUT.activeSpeaker, LANDSCAPE, ['a', 'b'])[0]!.uid, 'a');
    assert.equal(layout(MIX_LAYOUT.activeSpeaker, LANDSCAPE, ['a', 'b'], { activeSpeakerUid: 'gone' })[0]!.uid, 'a');
    const alone = layout(MIX_LAYOUT.activeSpeaker, LANDSCAPE, ['a'], { activeSpeakerUid: 'a' });
    assert.deepEqual(alone.map((r) => r.rect), [{ x: 0, y: 0, width: 640, height: 360 }]);
  });
});
