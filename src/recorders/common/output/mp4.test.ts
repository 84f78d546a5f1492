import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupMp4Slices } from './mp4.ts';

const slice = (i: number, durationSec: number, bytes?: number) => ({
  localPath: `s${i}`,
  startMs: i * 1000,
  durationSec,
  ...(bytes !== undefined ? { bytes } : {}),
});
const paths = (groups: { localPath: string }[][]) => groups.map((g) => g.map((s) => s.localPath));

test('MP4 groups (mix): a new MP4 once the duration or size limit would be passed', () => {
  const split = { kind: 'before-passing', maxMs: 30_000, maxBytes: 1000 } as const;
  assert.deepEqual(groupMp4Slices([slice(0, 15, 10), slice(1, 15, 10), slice(2, 15, 10)], split).map((g) => g.length), [2, 1]);
  assert.deepEqual(groupMp4Slices([slice(0, 1, 600), slice(1, 1, 600), slice(2, 1, 100)], split).map((g) => g.length), [1, 2]);
  assert.deepEqual(groupMp4Slices([], split), []);
});

test('MP4 groups (web): a new one once the current reaches the split length', () => {
  const split = { kind: 'once-reached', reachMs: 6000 } as const;
  const groups = groupMp4Slices([slice(0, 3), slice(1, 3), slice(2, 3), slice(3, 3), slice(4, 1)], split);
  assert.deepEqual(paths(groups), [['s0', 's1'], ['s2', 's3'], ['s4']]);
  assert.deepEqual(groupMp4Slices([], split), []);
  // The two rules differ on slices that do not add up to the limit: 4 + 4 passes 6 s but only then reaches it.
  const uneven = [slice(0, 4), slice(1, 4), slice(2, 4)];
  assert.deepEqual(paths(groupMp4Slices(uneven, split)), [['s0', 's1'], ['s2']]);
  assert.deepEqual(paths(groupMp4Slices(uneven, { kind: 'before-passing', maxMs: 6000, maxBytes: Infinity })), [['s0'], ['s1'], ['s2']]);
});
