import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchHold } from './batch-hold.ts';

const FRAME_MS = 1000 / 15;

/** Ticks every output frame from `fromMs`, queueing an item at each 20 ms arrival; the times written. */
function run(hold: BatchHold, fromMs: number, toMs: number, transitMs = 5): number[] {
  const writes: number[] = [];
  let nextArrival = fromMs;
  for (let tick = fromMs; tick <= toMs; tick += FRAME_MS) {
    for (; nextArrival <= tick; nextArrival += 20) hold.queued(nextArrival, nextArrival - transitMs);
    if (hold.shouldWrite(tick, tick + FRAME_MS)) {
      hold.written();
      writes.push(tick);
    }
  }
  return writes;
}

describe('BatchHold', () => {
  it('writes nothing while nothing is queued', () => {
    const hold = new BatchHold({ latencyMs: 400 });
    assert.equal(hold.shouldWrite(0, FRAME_MS), false);
  });

  it('on a quiet machine, holds items up to maxHoldMs: a write every two or three frames, none waiting longer', () => {
    const hold = new BatchHold({ latencyMs: 400, maxHoldMs: 150 });
    const writes = run(hold, 0, 10_000);
    const perSecond = writes.length / 10;
    assert.ok(perSecond >= 5 && perSecond <= 8, `${perSecond} writes a second`);
    for (let i = 1; i < writes.length; i++) assert.ok(writes[i]! - writes[i - 1]! <= 150 + FRAME_MS, `gap ${writes[i]! - writes[i - 1]!} ms`);
  });

  it('writes at every chance once the child answers late (a loaded machine), and holds again as that passes', () => {
    const hold = new BatchHold({ latencyMs: 400, maxHoldMs: 150, marginMs: 120 });
    hold.decoded(250, 0);
    const loaded = run(hold, 0, 1000);
    assert.ok(loaded.length >= 14, `${loaded.length} writes in the first second`);
    // Half-life 2 s: after 10 s the 250 ms spike counts 8 ms.
    const later = run(hold, 10_000, 20_000);
    assert.ok(later.length / 10 <= 8, `${later.length / 10} writes a second later`);
  });

  it('an item that arrives late (sender time long ago) is written at once', () => {
    const hold = new BatchHold({ latencyMs: 400, maxHoldMs: 150, marginMs: 120 });
    hold.queued(1000, 1000 - 250);
    assert.equal(hold.shouldWrite(1000, 1000 + FRAME_MS), true);
  });

  it('a sender time after the arrival (a clock ahead of ours) is taken as the arrival', () => {
    const hold = new BatchHold({ latencyMs: 400, maxHoldMs: 1000, marginMs: 120 });
    hold.queued(1000, 5000);
    assert.equal(hold.shouldWrite(1100, 1100 + FRAME_MS), false);
    assert.equal(hold.shouldWrite(1300, 1300 + FRAME_MS), true); // due at 1400: 1367 + 120 is past it
  });

  it('with a window smaller than the margin, writes at every chance', () => {
    const hold = new BatchHold({ latencyMs: 100 });
    assert.equal(run(hold, 0, 1000).length, 16);
  });
});
