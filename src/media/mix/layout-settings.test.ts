import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeMixLayoutSettings, MIX_LAYOUT } from './layout-settings.ts';

test('an empty layout change means every default: floating, black, no images, no regions', () => {
  assert.deepEqual(completeMixLayoutSettings({}), {
    kind: 0,
    maxResolutionUid: null,
    backgroundColor: '#000000',
    backgroundImageUrl: null,
    defaultUserBackgroundImageUrl: null,
    customRegions: [],
    userBackgrounds: [],
  });
  assert.ok(Object.isFrozen(completeMixLayoutSettings()));
});

test('a later change that omits a field reverts it (background colour back to black)', () => {
  const atStart = completeMixLayoutSettings({ kind: MIX_LAYOUT.vertical, maxResolutionUid: '42', backgroundColor: '#FF0000' });
  assert.equal(atStart.backgroundColor, '#FF0000');
  const updated = completeMixLayoutSettings({ kind: MIX_LAYOUT.vertical });
  assert.equal(updated.backgroundColor, '#000000');
  assert.equal(updated.maxResolutionUid, null, 'maxResolutionUid must be sent again with every change');
});

test('region and user-image defaults: uid-less, opaque, crop', () => {
  const s = completeMixLayoutSettings({
    kind: MIX_LAYOUT.custom,
    customRegions: [{ x: 0, y: 0, width: 1, height: 1 }],
    userBackgrounds: [{ uid: '5', imageUrl: 'https://example.invalid/a.jpg' }],
  });
  assert.deepEqual(s.customRegions, [{ uid: null, x: 0, y: 0, width: 1, height: 1, alpha: 1, renderMode: 'crop' }]);
  assert.deepEqual(s.userBackgrounds, [{ uid: '5', imageUrl: 'https://example.invalid/a.jpg', renderMode: 'crop' }]);
});

test('values the compositor cannot draw are refused with the field named', () => {
  assert.throws(() => completeMixLayoutSettings({ backgroundColor: 'red' }), /backgroundColor must be "#" followed by 6 hex digits/);
  assert.throws(() => completeMixLayoutSettings({ kind: 4 as never }), /kind must be one of 0, 1, 2, 3, 100/);
  assert.throws(
    () => completeMixLayoutSettings({ customRegions: [{ x: 0, y: 0, width: 1, height: 1, alpha: 1.5 }] }),
    /customRegions\[0\]\.alpha must be a number from 0 to 1/,
  );
  assert.throws(
    () => completeMixLayoutSettings({ customRegions: Array.from({ length: 18 }, () => ({ x: 0, y: 0, width: 1, height: 1 })) }),
    /at most 17/,
  );
});
