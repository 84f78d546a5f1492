import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { Liveness } from './liveness.ts';

test('liveness: fires once after the timeout without touches, touches postpone it, false excuses the silence', () => {
  const clock = new ManualClock();
  let fired = 0;
  const l = new Liveness(clock, 5000, () => void fired++);
  clock.advance(4000);
  l.touch();
  clock.advance(4000);
  assert.equal(fired, 0);
  clock.advance(1000);
  assert.equal(fired, 1);
  clock.advance(60000);
  assert.equal(fired, 1);

  let excuse = true;
  let asked = 0;
  const m = new Liveness(clock, 1000, () => {
    asked++;
    return excuse ? false : undefined;
  });
  clock.advance(3000);
  assert.equal(asked, 3);
  excuse = false;
  clock.advance(1000);
  assert.equal(asked, 4);
  clock.advance(5000);
  assert.equal(asked, 4);
  m.stop();
});
