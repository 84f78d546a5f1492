import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryDelay } from './backoff.ts';

test('retry delays double up to the cap; config errors wait the cap', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((a) => retryDelay(a, 1000, 30_000, false)), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.equal(retryDelay(1000, 1000, 30_000, false), 30_000);
  assert.equal(retryDelay(1, 1000, 30_000, true), 30_000);
});
