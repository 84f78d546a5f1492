import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RETRY, retryDelay, type Operation } from './retry.ts';

const delays = (op: Operation, status: number, code: number | undefined) => {
  const out: number[] = [];
  for (let attempt = 0; ; attempt++) {
    const d = retryDelay(DEFAULT_RETRY, op, status, code, attempt);
    if (d === undefined) return out;
    out.push(d);
  }
};

test('retry delays follow the integration advice per operation and answer', () => {
  assert.deepEqual(delays('start', 500, 502), [3000, 6000, 9000]);
  assert.deepEqual(delays('start', 504, 62), [3000, 6000, 9000]);
  assert.deepEqual(delays('acquire', 500, 500), []);
  assert.deepEqual(delays('stop', 206, 65), [3000, 6000]);
  assert.deepEqual(delays('query', 206, 65), [3000, 6000]);
  assert.deepEqual(delays('query', 404, 404), [5000, 10000, 15000]);
  // A gateway 404 (unknown route) has no code: not a session moving between servers.
  assert.deepEqual(delays('query', 404, undefined), []);
  assert.deepEqual(delays('stop', 404, 404), []);
  assert.deepEqual(delays('start', 400, 2), []);
  assert.deepEqual(delays('start', 201, 7), []);
});
