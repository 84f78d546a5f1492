import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../clock/index.ts';
import type { RecorderReport } from '../../../recording/dispatch/index.ts';
import { recorderSignals } from '../events.ts';
import { HoldSwitch } from './hold-switch.ts';
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

test('an instant is held when it lies in a hold: its start included, its end not, earlier holds too', () => {
  const h = new HoldState(false, 0);
  h.set(true, 10);
  assert.equal(h.heldAt(9), false);
  assert.equal(h.heldAt(10), true);
  assert.equal(h.heldAt(1e9), true, 'a hold that lasts');
  h.set(false, 18);
  assert.equal(h.heldAt(17), true, 'sent during the hold, arriving after it');
  assert.equal(h.heldAt(18), false);
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

test('HoldSwitch: starts in the stored hold, runs changes one after another, sends each event after the mode’s work', async () => {
  const clock = new ManualClock(1000);
  const log: string[] = [];
  const report = { event: (type: number, _service: number, d: { UtcMs?: unknown }) => log.push(`event ${type} @${String(d.UtcMs)}`) };
  let release: () => void = () => undefined;
  let ending = false;
  const hold = new HoldSwitch({ onhold: true }, clock, recorderSignals(report as unknown as RecorderReport), {
    pause: async () => {
      log.push('pause');
      await new Promise<void>((r) => (release = r));
      log.push('paused');
    },
    resume: () => void log.push('resume'),
    ending: () => ending,
  });
  assert.equal(hold.onhold, true);
  hold.announce();
  clock.advance(500);
  await hold.set(false);
  clock.advance(500);
  const held = hold.set(true);
  const repeat = hold.set(true);
  await new Promise((r) => setImmediate(r));
  // The resume is done; the hold waits for its pause before its event, and the repeat after it changes nothing.
  assert.deepEqual(log, ['event 1100 @1000', 'resume', 'event 1101 @1500', 'pause']);
  release();
  await Promise.all([held, repeat]);
  assert.deepEqual(log.slice(4), ['paused', 'event 1100 @2000']);
  ending = true;
  await hold.set(false);
  assert.equal(hold.onhold, true, 'no change once the session is ending');
  assert.equal(log.length, 6);
});
