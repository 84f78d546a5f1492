// The named states of a held session: the lease (lease-keeper.ts) and the recorder (held-session.ts), their
// transition functions, and the lease keeper on a real lease table with the injected clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../clock/index.ts';
import { createLogger } from '../../../log/index.ts';
import { openTestDatabase, TEST_DIALECTS } from '../../../testing/index.ts';
import type { RecorderHandle, StopResult } from '../types.ts';
import { heldAfter, type HeldState } from './held-session.ts';
import { LeaseKeeper, leaseAfter, LeaseState } from './lease-keeper.ts';
import { LeaseStore } from './lease.ts';

const T0 = 1_700_000_000_000;
const LEASE = 9_000;

test('lease state: renewals move the end, a refusal or an unreachable database past the end loses it, lost and left are final', () => {
  const held = LeaseState.create(T0, LEASE);
  assert.deepEqual(held, { kind: 'held', validUntil: T0 + LEASE, completed: false });
  assert.equal(LeaseState.writable(held, T0 + LEASE - 1), true);
  assert.equal(LeaseState.writable(held, T0 + LEASE), false, 'past its end by our clock, renewed or not');

  const renewed = leaseAfter(held, { kind: 'renewed', askedAt: T0 + 3000 }, LEASE);
  assert.deepEqual(renewed, { kind: 'held', validUntil: T0 + 3000 + LEASE, completed: false });
  // The database does not answer: recording goes on while the lease lasts, then it is lost.
  assert.equal(leaseAfter(renewed, { kind: 'unreachable', now: T0 + 3000 + LEASE - 1 }, LEASE), renewed);
  assert.deepEqual(leaseAfter(renewed, { kind: 'unreachable', now: T0 + 3000 + LEASE }, LEASE), { kind: 'lost' });
  const lost = leaseAfter(renewed, { kind: 'refused' }, LEASE);
  assert.deepEqual(lost, { kind: 'lost' });
  assert.equal(LeaseState.isFenced(lost), true);
  assert.equal(leaseAfter(lost, { kind: 'renewed', askedAt: T0 + 6000 }, LEASE), lost, 'a lost lease is not won back');
  assert.deepEqual(leaseAfter(lost, { kind: 'leave' }, LEASE), { kind: 'left' });
  assert.deepEqual(leaseAfter(held, { kind: 'leave' }, LEASE), { kind: 'left' });
  assert.equal(LeaseState.reportable({ kind: 'left' }, T0), false);
});

test('lease state: a session completed here keeps its late reports its own past the lease end, not its writes', () => {
  const done = leaseAfter(LeaseState.create(T0, LEASE), { kind: 'completed' }, LEASE);
  assert.deepEqual(done, { kind: 'held', validUntil: T0 + LEASE, completed: true });
  assert.equal(LeaseState.reportable(done, T0 + 10 * LEASE), true);
  assert.equal(LeaseState.writable(done, T0 + 10 * LEASE), false);
  // Lost after completing (another recorder took it): its reports are stale again.
  assert.equal(LeaseState.reportable(leaseAfter(done, { kind: 'refused' }, LEASE), T0 + 1), false);
  // Completing a lost lease changes nothing.
  assert.deepEqual(leaseAfter({ kind: 'lost' }, { kind: 'completed' }, LEASE), { kind: 'lost' });
});

test('held state: started runs, one stop is shared, a failed start or a stop before the start changes nothing more', () => {
  const handle: RecorderHandle = { update: async () => undefined, stop: async () => ({ uploadingStatus: 'uploaded', files: [], recordedAnything: false }) };
  const first = Promise.resolve<StopResult>({ uploadingStatus: 'uploaded', files: [], recordedAnything: true });
  const second = Promise.resolve<StopResult>({ uploadingStatus: 'unknown', files: [], recordedAnything: false });
  const starting: HeldState = { kind: 'starting' };
  assert.equal(heldAfter(starting, { kind: 'stopAsked', stopped: first }), starting, 'nothing to stop before the start');
  const running = heldAfter(starting, { kind: 'started', handle });
  assert.deepEqual(running, { kind: 'running', handle });
  const stopping = heldAfter(running, { kind: 'stopAsked', stopped: first });
  assert.deepEqual(stopping, { kind: 'stopping', handle, stopped: first });
  assert.equal(heldAfter(stopping, { kind: 'stopAsked', stopped: second }), stopping, 'a second stop joins the first');
  assert.equal(heldAfter(stopping, { kind: 'started', handle }), stopping);
  const failed = heldAfter(starting, { kind: 'startFailed' });
  assert.deepEqual(failed, { kind: 'failed' });
  assert.equal(heldAfter(failed, { kind: 'started', handle }), failed);
  assert.equal(heldAfter(running, { kind: 'startFailed' }), running);
});

for (const dialect of TEST_DIALECTS) {
  test(`[${dialect}] lease keeper: renews on the clock, fences once another holder took the session, lets go on leave`, async () => {
    const h = await openTestDatabase(dialect);
    try {
      const clock = new ManualClock(T0);
      const leases = new LeaseStore(h.db);
      const log = createLogger('silent');
      const a = (await leases.acquire('r1', 's1', 'A', T0, LEASE))!;
      let renewed: () => void = () => undefined;
      let lost: () => void = () => undefined;
      const lostNow = new Promise<void>((r) => (lost = r));
      const keeper = new LeaseKeeper(
        { leases, clock, log, leaseMs: LEASE, onLost: () => lost(), afterRenewal: async () => renewed() },
        a,
        T0,
      );
      assert.equal(keeper.fence.holds(), true);
      // A third of the lease later it is renewed: the row now runs past the first end.
      const renewal = new Promise<void>((r) => (renewed = r));
      clock.advance(LEASE / 3);
      await renewal;
      assert.equal(await leases.isHeld('r1', T0 + LEASE + 1), true);
      assert.equal(keeper.fenced, false);

      // Another recorder took the session (this one was cut off meanwhile): the next renewal is refused.
      await leases.release(a);
      const b = (await leases.acquire('r1', 's1', 'B', clock.now(), LEASE))!;
      assert.equal(b.epoch, 2);
      clock.advance(LEASE / 3);
      await lostNow;
      assert.equal(keeper.fenced, true);
      assert.equal(keeper.fence.holds(), false);
      assert.equal(keeper.reportFence.holds(), false);
      // Ending a keeper that lost its lease does not release the new holder's lease.
      await keeper.end();
      assert.equal(await leases.isCurrent(b, clock.now()), true);

      // B shuts down and leaves the session: fenced at once and the lease is free for the next recorder.
      const keeperB = new LeaseKeeper({ leases, clock, log, leaseMs: LEASE, onLost: () => undefined, afterRenewal: async () => undefined }, b, clock.now());
      await keeperB.leave();
      assert.equal(keeperB.fence.holds(), false);
      assert.equal(await leases.isHeld('r1', clock.now()), false);
    } finally {
      await h.close();
    }
  });
}
