import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestDatabase, TEST_DIALECTS } from '../../../testing/index.ts';
import { LeaseStore } from './lease.ts';

const T0 = 1_700_000_000_000;
const LEASE = 10_000;

for (const dialect of TEST_DIALECTS) {
  test(`[${dialect}] leases: one holder at a time, a new epoch per take-over, the old holder fenced`, async () => {
    const h = await openTestDatabase(dialect);
    try {
      const leases = new LeaseStore(h.db);
      const a = await leases.acquire('r1', 's1', 'A', T0, LEASE);
      assert.deepEqual(a, { resourceId: 'r1', sid: 's1', epoch: 1, holder: 'A' });
      // B cannot take it while A's lease runs, even after A renewed it.
      assert.equal(await leases.acquire('r1', 's1', 'B', T0 + 1000, LEASE), undefined);
      assert.equal(await leases.renew(a!, T0 + 5000, LEASE), true);
      assert.equal(await leases.acquire('r1', 's1', 'B', T0 + LEASE + 1000, LEASE), undefined);
      assert.equal(await leases.isHeld('r1', T0 + LEASE + 1000), true);
      // A stops renewing: once the lease ran out, nobody holds the session (the switch window) until B takes it.
      const after = T0 + 5000 + LEASE;
      assert.equal(await leases.isHeld('r1', after), false);
      assert.equal(await leases.isCurrent(a!, after), false);
      const b = await leases.acquire('r1', 's1', 'B', after, LEASE);
      assert.equal(b?.epoch, 2);
      // A comes back: its renewal fails and it is not current (it must stop writing).
      assert.equal(await leases.renew(a!, after + 1, LEASE), false);
      assert.equal(await leases.isCurrent(a!, after + 1), false);
      assert.equal(await leases.isCurrent(b!, after + 1), true);
      // Released on stop: free at once, the epoch kept.
      await leases.release(b!);
      assert.equal(await leases.isHeld('r1', after + 2), false);
      assert.equal((await leases.acquire('r1', 's1', 'C', after + 2, LEASE))?.epoch, 3);
      // Leases of other sessions are independent.
      assert.equal((await leases.acquire('r2', 's2', 'A', after, LEASE))?.epoch, 1);
    } finally {
      await h.close();
    }
  });
}
