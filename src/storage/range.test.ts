import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRange } from './range.ts';

test('single byte ranges resolve against the size; odd headers fall back to the whole file', () => {
  assert.deepEqual(parseRange('bytes=0-99', 1000), { start: 0, end: 99 });
  assert.deepEqual(parseRange('bytes=900-', 1000), { start: 900, end: 999 });
  assert.deepEqual(parseRange('bytes=-100', 1000), { start: 900, end: 999 });
  assert.deepEqual(parseRange('bytes=-5000', 1000), { start: 0, end: 999 });
  assert.deepEqual(parseRange('bytes=990-5000', 1000), { start: 990, end: 999 });
  assert.equal(parseRange('bytes=1000-', 1000), 'unsatisfiable');
  assert.equal(parseRange('bytes=5-1', 1000), 'unsatisfiable');
  assert.equal(parseRange('bytes=-0', 1000), 'unsatisfiable');
  assert.equal(parseRange(undefined, 1000), undefined);
  assert.equal(parseRange('bytes=0-1,5-6', 1000), undefined);
  assert.equal(parseRange('items=0-1', 1000), undefined);
  assert.equal(parseRange('bytes=-', 1000), undefined);
});
