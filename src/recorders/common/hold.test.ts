import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoldState } from './hold.ts';

test('a hold and a resume each send their event once; repeats change nothing', () => {
  const h = new HoldState(false, 0);
  assert.equal(h.onhold, false);
  assert.equal(h.set(false, 5), undefined);
  assert.equal(h.set(true, 10), 'recorderOnHold');
  assert.equal(h.set(true, 12), undefined);
  assert.equal(h.onhold, true);
  assert.equal(h.heldMs(15), 5);
  assert.equal(h.set(false, 18), 'recorderResumed');
  assert.equal(h.set(false, 19), undefined);
  assert.deepEqual(h.windows, [{ startMs: 10, endMs: 18 }]);
  assert.equal(h.heldMs(100), 8);
});

test('a session started on hold is held from its start; windows add up', () => {
  const h = new HoldState(true, 1000);
  assert.equal(h.onhold, true);
  assert.equal(h.set(false, 1500), 'recorderResumed');
  assert.equal(h.set(true, 2000), 'recorderOnHold');
  assert.equal(h.heldMs(2300), 800);
  assert.deepEqual(h.windows, [
    { startMs: 1000, endMs: 1500 },
    { startMs: 2000, endMs: undefined },
  ]);
});
