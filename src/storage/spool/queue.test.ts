// The upload queue alone: a ManualClock and attempts the test resolves by hand, no files, no database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { UploadQueue } from './queue.ts';
import type { FileRow } from './store.ts';

const row = (id: string, key: string, enqueuedAt: number, sid = 's1'): FileRow => ({
  id,
  sid,
  key,
  spool_path: `/spool/${id}`,
  content_type: 'video/mp2t',
  bytes: 10,
  state: 'pending',
  attempts: 0,
  last_error: null,
  enqueued_at: enqueuedAt,
  uploaded_at: null,
  node: 'n',
  owner: 'o',
  lease_until: null,
});

/** A queue whose attempts wait until the test ends them; `started` lists ids in start order. */
function rig(concurrency: number) {
  const clock = new ManualClock();
  const started: string[] = [];
  const running = new Map<string, () => void>();
  const after: string[] = [];
  const queue = new UploadQueue({
    clock,
    concurrency,
    attempt: (r) => {
      started.push(r.id);
      return new Promise<void>((resolve) => running.set(r.id, resolve));
    },
    onAttemptRejected: () => undefined,
    afterAttempt: (r) => after.push(r.id),
  });
  /** Ends an attempt; `done` also lets go of the row (uploaded). */
  const end = async (id: string, done: boolean) => {
    if (done) queue.remove(id);
    running.get(id)!();
    running.delete(id);
    await new Promise((r) => setImmediate(r));
  };
  return { clock, queue, started, after, end };
}

test('oldest first, at most `concurrency` at once, never two uploads of one key together', async () => {
  const { queue, started, after, end } = rig(2);
  queue.add([row('c', 'k3', 3), row('a', 'k1', 1), row('b', 'k1', 2), row('d', 'k4', 4)]);
  // b waits for a (same key) although a slot is free: c goes second.
  assert.deepEqual(started, ['a', 'c']);
  assert.equal(queue.bytes, 40);
  await end('a', true);
  assert.deepEqual(started, ['a', 'c', 'b']);
  assert.deepEqual(after, ['a']);
  assert.equal(queue.bytes, 30);
  assert.equal(queue.hasNewerCopy(row('b', 'k1', 2)), false);
  await end('c', true);
  assert.deepEqual(started, ['a', 'c', 'b', 'd']);
});

test('a failed row waits its delay on the clock; retryNow skips the wait; settled once each row was tried', async () => {
  const { clock, queue, started, end } = rig(4);
  queue.add([row('a', 'k1', 1), row('b', 'k2', 2)]);
  assert.equal(queue.settled('s1'), false);
  for (const id of ['a', 'b']) {
    queue.setAttempts(id, 1);
    queue.retryLater(id, 5000);
    await end(id, false);
  }
  assert.equal(queue.settled('s1'), true);
  clock.advance(4999);
  assert.deepEqual(started, ['a', 'b']);
  clock.advance(1);
  assert.deepEqual(started, ['a', 'b', 'a', 'b']);
  assert.equal(queue.settled('s1'), false, 'in flight again');
  for (const id of ['a', 'b']) {
    queue.retryLater(id, 30_000);
    await end(id, false);
  }
  queue.retryNow('s1');
  assert.deepEqual(started, ['a', 'b', 'a', 'b', 'a', 'b']);
});

test('retain lets go of rows another process took, except one in flight; a removed row is never retried', async () => {
  const { clock, queue, started, end } = rig(1);
  queue.add([row('a', 'k1', 1), row('b', 'k2', 2), row('c', 'k3', 3)]);
  assert.deepEqual(started, ['a']);
  const asked = queue.heldIds();
  // Added while the renewal ran: not in its answer, and not let go.
  queue.add([row('d', 'k4', 4)]);
  queue.retain(asked, new Set(['c']));
  assert.equal(queue.has('d'), true, 'a row added while the renewal ran stays');
  queue.remove('d');
  assert.equal(queue.has('a'), true, 'in flight: kept until its attempt ends');
  assert.equal(queue.has('b'), false);
  queue.retryLater('a', 1000);
  await end('a', false);
  assert.deepEqual(started, ['a', 'c']);
  queue.remove('a');
  clock.advance(1000);
  assert.deepEqual(started, ['a', 'c']);
  assert.equal(queue.bytes, 10);
  const closed = queue.close();
  await end('c', true);
  await closed;
  assert.equal(queue.bytes, 0);
});
