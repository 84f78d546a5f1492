// Events raised while PostgreSQL does not answer (a TCP proxy in front of the shared server refuses connections)
// wait in the process and are stored and delivered once it answers again: each once, in the order raised.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../clock/index.ts';
import { openDatabase } from '../db/index.ts';
import { openTestDatabase, startTcpProxy, TEST_PG_URL, waitUntil, type TcpProxy, type TestDatabase } from '../testing/index.ts';
import { event, startNotify, startReceiver } from './test-helpers.ts';
import type { NotifyModule } from './index.ts';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type Answer = Parameters<typeof startReceiver>[0];

interface Outage {
  readonly db: TestDatabase;
  readonly proxy: TcpProxy;
  readonly clock: ManualClock;
  readonly rx: Receiver;
  readonly m: NotifyModule;
}

/** Notify on a database reached through a TCP proxy the test can cut, a webhook receiver, a manual clock. */
async function withOutage(answer: ((proxy: TcpProxy) => Answer) | undefined, run: (o: Outage) => Promise<void>): Promise<void> {
  const db = await openTestDatabase('postgres');
  const proxy = await startTcpProxy(Number(new URL(TEST_PG_URL).port || 5432));
  const viaProxy = await openDatabase({ url: proxy.via(`${TEST_PG_URL}?schema=${db.location.pgSchema}`) });
  const clock = new ManualClock();
  const rx = await startReceiver(answer?.(proxy));
  const m = await startNotify({ database: { ...viaProxy, location: db.location }, clock, url: rx.url });
  try {
    await run({ db, proxy, clock, rx, m });
  } finally {
    await m.close();
    await rx.close();
    await viaProxy.close();
    await proxy.close();
    await db.close();
  }
}

/** `steps` turns of the manual clock by `stepMs`, a short real pause before each so the sender's retries run. */
async function turnClock(clock: ManualClock, steps: number, stepMs: number, pauseMs: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await new Promise((r) => setTimeout(r, pauseMs));
    clock.advance(stepMs);
  }
}

test('[postgres] events raised during a database outage are delivered afterwards, once each, in order', async () => {
  await withOutage(undefined, async ({ db, proxy, clock, rx, m }) => {
    await m.emit(event('sid-o', 40));
    // Delivered and recorded as such (a cut between the POST and that record resends it: at least once).
    await waitUntil(async () => (await m.deliveries({}))[0]?.status === 'delivered', { what: 'the first event delivered' });

    proxy.cut('reset');
    const raised = [
      m.emit(event('sid-o', 43, { msgName: 'recorder_audio_stream_state_changed', streamUid: '1', state: 1 })),
      m.emit(event('sid-o', 44, { msgName: 'recorder_video_stream_state_changed', streamUid: '1', state: 1 })),
      m.emit(event('sid-o', 41, { msgName: 'recorder_leave', leaveCode: 2 })),
    ];
    // Retries run on the clock: a few of them while the database is away.
    await turnClock(clock, 6, 1000, 100);
    assert.equal(rx.received.length, 1, 'nothing sent while the database is away');

    proxy.restore();
    let settled = false;
    void Promise.all(raised).then(() => (settled = true));
    await waitUntil(() => {
      clock.advance(1000);
      return settled;
    }, { what: 'the kept events stored' });
    await waitUntil(() => rx.received.length >= 4, { what: 'every event delivered' });
    await new Promise((r) => setTimeout(r, 300));
    const bodies = rx.bodies();
    assert.deepEqual(bodies.map((b) => [b.payload.sequence, b.eventType]), [[0, 40], [1, 43], [2, 44], [3, 41]]);
    assert.equal(new Set(bodies.map((b) => b.noticeId)).size, 4, 'each delivered once');
    const recs = await db.db.selectFrom('notify_deliveries').select(['sequence', 'status']).orderBy('sequence').execute();
    assert.deepEqual(recs.map((r) => [Number(r.sequence), r.status]), [[0, 'delivered'], [1, 'delivered'], [2, 'delivered'], [3, 'delivered']]);
  });
});

test('[postgres] a delivery whose record the database did not take is not sent again: kept, written when it answers', async () => {
  // The database goes away while the receiver answers the first POST: 200 reaches the sender, its record cannot.
  const cutOnFirst = (proxy: TcpProxy): Answer => (_r, i) => {
    if (i === 0) proxy.cut('reset');
    return 200;
  };
  await withOutage(cutOnFirst, async ({ db, proxy, clock, rx, m }) => {
    await m.emit(event('sid-r', 40));
    const second = m.emit(event('sid-r', 41, { msgName: 'recorder_leave', leaveCode: 2 }));
    await waitUntil(() => rx.received.length >= 1, { what: 'the first POST' });
    // Well past the sender's error back-off (30 s) and the claim's lease (40 s): before, the event went out again.
    await turnClock(clock, 30, 5000, 20);
    assert.equal(rx.received.length, 1, 'not sent again while its record waits');

    proxy.restore();
    let stored = false;
    void second.then(() => (stored = true));
    await waitUntil(() => {
      clock.advance(1000);
      return stored && rx.received.length >= 2;
    }, { what: 'the second event stored and sent' });
    await new Promise((r) => setTimeout(r, 300));
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(rx.bodies().map((b) => [b.payload.sequence, b.eventType]), [[0, 40], [1, 41]], 'each once, in order');
    const recs = await db.db.selectFrom('notify_deliveries').select(['sequence', 'status', 'attempts']).orderBy('sequence').execute();
    assert.deepEqual(recs.map((r) => [Number(r.sequence), r.status, Number(r.attempts)]), [[0, 'delivered', 1], [1, 'delivered', 1]]);
    const attempts = await db.db.selectFrom('notify_attempts').select(['attempt', 'http_status']).execute();
    assert.deepEqual(attempts.map((a) => [Number(a.attempt), a.http_status]), [[1, 200], [1, 200]]);
  });
});
