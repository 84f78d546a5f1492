import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { systemClock } from './index.ts';

test('systemClock: a timer longer than 2^31-1 ms (30 days) waits its whole time, and can be cleared midway', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const thirtyDays = 30 * 24 * 3600 * 1000;
    let fired = 0;
    systemClock.setTimeout(() => fired++, thirtyDays);
    const cleared = systemClock.setTimeout(() => fired++, thirtyDays);
    mock.timers.tick(2 ** 31 - 1);
    systemClock.clearTimeout(cleared);
    assert.equal(fired, 0);
    mock.timers.tick(thirtyDays - 2 ** 31);
    assert.equal(fired, 0, 'one millisecond early');
    mock.timers.tick(1);
    assert.equal(fired, 1);
  } finally {
    mock.timers.reset();
  }
});
