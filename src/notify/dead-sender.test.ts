// A sender process of this machine dies (SIGKILL) while one of a session's events is in its hands; another process
// goes on with the session (a failed-over recording: event 12 next). A POST in flight is resent at once and the
// session's next event follows, on a clock that never reaches the dead sender's lease; a 200 the dead sender received
// but could not record (database away) is not resent: its journal writes it (docs/notify.md).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ManualClock } from '../clock/index.ts';
import { spawnChild } from '../process/index.ts';
import { openTestDatabase, startTcpProxy, TEST_PG_URL, waitUntil, type TestDatabase } from '../testing/index.ts';
import { event, startNotify, startReceiver } from './test-helpers.ts';

const SCRIPT = `import { runSenderProcess } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'testing', 'sender-process.ts')).href)}; await runSenderProcess();`;

interface Sender {
  readonly child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** A notify module in a process of its own (testing/sender-process.ts). */
function startSender(env: Record<string, string>): Sender {
  const child = spawnChild(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = once(child, 'exit');
  return {
    child,
    output: () => out,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const pgUrl = (db: TestDatabase) => `${TEST_PG_URL}?schema=${db.location.pgSchema}`;

test('[postgres] a sender killed mid-POST: another process resends that event at once and sends event 12 after it, with no wait for the lease', async () => {
  const db = await openTestDatabase('postgres');
  const rx = await startReceiver((_r, i) => (i === 0 ? 'hang' : 200));
  const dead = startSender({
    NOTIFY_TEST_DATABASE_URL: pgUrl(db),
    NOTIFY_TEST_WEBHOOK_URL: rx.url,
    NOTIFY_TEST_DATA_DIR: mkdtempSync(join(tmpdir(), 'reeltime-sender-')),
    NOTIFY_TEST_SID: 'sid-fo',
  });
  let clock: ManualClock | undefined;
  let b: Awaited<ReturnType<typeof startNotify>> | undefined;
  try {
    await waitUntil(() => rx.received.length === 1, { timeoutMs: 60_000, what: `the sender's POST\n${dead.output()}` });
    await dead.kill();
    // From now on this clock stands still: the dead sender's lease (timeoutMs + 30 s) never runs out here.
    clock = new ManualClock(Date.now());
    b = await startNotify({ database: db, clock, url: rx.url });
    await b.emit(event('sid-fo', 12, { msgName: 'session_failover', newUid: '527842' }));
    await waitUntil(() => rx.bodies().some((x) => x.eventType === 12), { timeoutMs: 30_000, what: 'event 12 delivered before the lease ran out' });
    const bodies = rx.bodies();
    assert.deepEqual(bodies.map((x) => [x.payload.sequence, x.eventType]), [[0, 40], [0, 40], [1, 12]], 'the lost POST again, then event 12');
    assert.equal(bodies[1]!.noticeId, bodies[0]!.noticeId, 'the resend keeps its noticeId');
    const recs = await waitUntil(async () => {
      const d = await b!.deliveries({ sid: 'sid-fo' });
      return d.every((r) => r.status === 'delivered') ? d : undefined;
    }, { what: 'both recorded as delivered' });
    assert.equal(recs.length, 2);
    // On this process's clock, event 12 went out the moment it was raised.
    assert.equal(recs[1]!.deliveredMs, recs[1]!.createdMs);
    assert.equal(clock.now(), recs[1]!.createdMs, 'the clock did not move');
  } finally {
    await dead.kill().catch(() => undefined);
    await b?.close();
    await rx.close();
    await db.close();
  }
});

test('[postgres] a sender killed holding a 200 it could not record: nobody resends that event; the next process on its data dir records it and sends event 12', async () => {
  const db = await openTestDatabase('postgres');
  const proxy = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
  // The sender's database goes away while the receiver answers its first POST: the 200 arrives, its record cannot.
  const rx = await startReceiver((_r, i) => {
    if (i === 0) proxy.cut('reset');
    return 200;
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'reeltime-sender-'));
  const env = { NOTIFY_TEST_DATABASE_URL: proxy.via(pgUrl(db)), NOTIFY_TEST_WEBHOOK_URL: rx.url, NOTIFY_TEST_DATA_DIR: dataDir };
  const dead = startSender({ ...env, NOTIFY_TEST_SID: 'sid-kept' });
  let b: Awaited<ReturnType<typeof startNotify>> | undefined;
  let next: Sender | undefined;
  try {
    await waitUntil(() => rx.received.length === 1, { timeoutMs: 60_000, what: `the sender's POST\n${dead.output()}` });
    const noticeId = rx.bodies()[0]!.noticeId;
    const journalled = () => {
      const dir = join(dataDir, 'outbox');
      return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith('notify-delivered.') && readFileSync(join(dir, f), 'utf8').includes(noticeId));
    };
    await waitUntil(() => journalled(), { timeoutMs: 30_000, what: `the kept record journalled\n${dead.output()}` });
    await dead.kill();
    proxy.restore();

    const clock = new ManualClock(Date.now());
    b = await startNotify({ database: db, clock, url: rx.url });
    await b.emit(event('sid-kept', 12, { msgName: 'session_failover', newUid: '527842' }));
    const [first] = await db.db.selectFrom('notify_deliveries').select(['lease_until', 'status']).where('sequence', '=', 0).execute();
    assert.equal(first?.status, 'pending', 'its record is only in the dead sender’s journal');
    // Up to a second before the dead sender's lease ends, a second at a time: nothing is sent.
    const leaseEnd = Number(first.lease_until);
    while (clock.now() < leaseEnd - 1_000) {
      await new Promise((r) => setTimeout(r, 20));
      clock.advance(Math.min(1_000, leaseEnd - 1_000 - clock.now()));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.received.length, 1, 'neither resent nor passed by event 12 while the claim holds');

    next = startSender(env);
    await waitUntil(() => rx.bodies().some((x) => x.eventType === 12), { timeoutMs: 60_000, what: `event 12 from the next sender\n${next?.output()}` });
    // The next sender records event 12's 200 after it came (over 300 ms under the suite's load, fresh-clone run of
    // session 29): wait for both records, then nothing was sent twice.
    const statuses = async () => (await b!.deliveries({ sid: 'sid-kept' })).map((r) => [r.status, r.attempts.length]);
    await waitUntil(async () => JSON.stringify(await statuses()) === JSON.stringify([['delivered', 1], ['delivered', 1]]), {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'both records delivered once',
    }).catch(async (e: Error) => assert.fail(`${e.message}: ${JSON.stringify(await statuses())}`));
    assert.deepEqual(rx.bodies().map((x) => [x.payload.sequence, x.eventType]), [[0, 40], [1, 12]], 'each once, in order');
  } finally {
    await dead.kill().catch(() => undefined);
    await next?.stop();
    await b?.close();
    await rx.close();
    await proxy.close();
    await db.close();
  }
});
