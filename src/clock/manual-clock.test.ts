import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from './index.ts';

test('ManualClock fires due timers in order, including ones scheduled while advancing', () => {
  const c = new ManualClock(1000);
  const seen: string[] = [];
  c.setTimeout(() => seen.push('b'), 200);
  c.setTimeout(() => {
    seen.push('a');
    c.setTimeout(() => seen.push('a2'), 50);
  }, 100);
  const h = c.setTimeout(() => seen.push('never'), 150);
  c.clearTimeout(h);
  c.advance(199);
  assert.deepEqual(seen, ['a', 'a2']);
  c.advance(1);
  assert.deepEqual(seen, ['a', 'a2', 'b']);
  assert.equal(c.now(), 1200);
});
