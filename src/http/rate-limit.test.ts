import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimiter } from './rate-limit.ts';

test('rate limiter: N per second per key with burst N, refilled by elapsed time, 0 turns it off', () => {
  let now = 1_000_000;
  const limiter = new RateLimiter(() => now, 100);
  for (let i = 0; i < 100; i++) assert.equal(limiter.allow('org#a'), true, `request ${i + 1}`);
  assert.equal(limiter.allow('org#a'), false, 'the 101st within the same instant');
  assert.equal(limiter.allow('org#b'), true, 'another key has its own bucket');
  now += 10;
  assert.equal(limiter.allow('org#a'), true, '10 ms refill one token');
  assert.equal(limiter.allow('org#a'), false);
  now += 1000;
  for (let i = 0; i < 100; i++) assert.equal(limiter.allow('org#a'), true);
  assert.equal(limiter.allow('org#a'), false, 'never more than the burst after a pause');

  const off = new RateLimiter(() => now, 0);
  for (let i = 0; i < 1000; i++) assert.equal(off.allow('k'), true);
});
