import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { ManualClock } from '../clock/index.ts';
import { openTestDatabase, TEST_DIALECTS, waitUntil } from '../testing/index.ts';
import { APP_ID, SECRET, event, logSink, startNotify, startReceiver } from './test-helpers.ts';

const hex = (alg: string, raw: Buffer) => createHmac(alg, SECRET).update(raw).digest('hex');

for (const dialect of TEST_DIALECTS) {
  test(`[${dialect}] events arrive signed over the raw body, in sequence order per sid, and the secret stays secret`, async () => {
    const db = await openTestDatabase(dialect);
    const clock = new ManualClock();
    const rx = await startReceiver();
    const sink = logSink();
    const m = await startNotify({ database: db, clock, url: rx.url, lines: sink });
    try {
      await m.emit(event('sid-a', 40, { msgName: 'recorder_started', status: 0 }));
      await m.emit(event('sid-b', 40));
      clock.advance(5);
      await m.emit(event('sid-a', 30, { msgName: 'uploader_started', status: 0 }));
      await m.emit(event('sid-a', 31, { msgName: 'uploaded', status: 0, fileList: [{ fileName: 'a.m3u8', isPlayable: true }] }));
      await waitUntil(async () => (await m.deliveries({})).filter((d) => d.status === 'delivered').length === 4, { what: 'four deliveries' });

      for (const r of rx.received) {
        assert.equal(r.headers['content-type'], 'application/json');
        assert.equal(r.headers['agora-signature'], hex('sha1', r.raw));
        assert.equal(r.headers['agora-signature-v2'], hex('sha256', r.raw));
      }
      const a = rx.bodies().filter((b) => b.payload.sid === 'sid-a');
      assert.deepEqual(a.map((b) => b.payload.sequence), [0, 1, 2]);
      assert.deepEqual(a.map((b) => b.eventType), [40, 30, 31]);
      assert.deepEqual(rx.bodies().filter((b) => b.payload.sid === 'sid-b').map((b) => b.payload.sequence), [0]);
      const last = a[2]!;
      assert.deepEqual(Object.keys(last), ['noticeId', 'productId', 'eventType', 'notifyMs', 'payload']);
      assert.deepEqual(Object.keys(last.payload), ['cname', 'uid', 'sid', 'sequence', 'sendts', 'serviceType', 'details']);
      assert.equal(last.productId, 3);
      assert.equal(last.payload.sendts, clock.now());
      assert.equal(last.notifyMs, clock.now());
      assert.deepEqual(last.payload.details, { msgName: 'uploaded', status: 0, fileList: [{ fileName: 'a.m3u8', isPlayable: true }] });
      assert.equal(new Set(rx.bodies().map((b) => b.noticeId)).size, 4, 'noticeId is unique');

      const recs = await m.deliveries({ appId: APP_ID, sid: 'sid-a' });
      assert.deepEqual(recs.map((d) => [d.sequence, d.msgName, d.status, d.attempts.length]), [
        [0, 'recorder_started', 'delivered', 1],
        [1, 'uploader_started', 'delivered', 1],
        [2, 'uploaded', 'delivered', 1],
      ]);
      assert.equal(recs[0]?.attempts[0]?.httpStatus, 200);
      const everything = JSON.stringify(recs) + sink.lines.join('\n');
      assert.ok(!everything.includes(SECRET), 'secret never in deliveries or logs');
      assert.ok(!everything.includes('token=abc'), 'URL query (may hold tokens) never in deliveries or logs');
    } finally {
      await m.close();
      await rx.close();
      await db.close();
    }
  });

  test(`[${dialect}] a failing webhook is retried at once, then after a delay; the next event waits its turn`, async () => {
    const db = await openTestDatabase(dialect);
    const clock = new ManualClock();
    const rx = await startReceiver((_r, i) => (i < 2 ? 500 : 200));
    const m = await startNotify({ database: db, clock, url: rx.url, notify: { retryDelaysMs: [0, 1000, 5000] } });
    try {
      await m.emit(event('sid-r', 40));
      await m.emit(event('sid-r', 41, { msgName: 'recorder_leave', leaveCode: 2 }));
      const [first] = await waitUntil(async () => {
        const d = await m.deliveries({ sid: 'sid-r' });
        return d[0]?.attempts.length === 2 ? d : undefined;
      }, { what: 'two failed attempts' });
      assert.equal(first?.status, 'pending');
      assert.equal(first?.nextAttemptMs, clock.now() + 1000);
      assert.match(first?.lastError ?? '', /HTTP 500/);
      assert.equal(rx.received.length, 2, 'sequence 1 is held back while 0 is being retried');
      clock.advance(1000);
      await waitUntil(async () => (await m.deliveries({ sid: 'sid-r' })).every((d) => d.status === 'delivered'), { what: 'both delivered' });
      const bodies = rx.bodies();
      assert.deepEqual(bodies.map((b) => b.payload.sequence), [0, 0, 0, 1]);
      assert.equal(new Set(bodies.slice(0, 3).map((b) => b.noticeId)).size, 1, 'a resend keeps its noticeId');
      assert.equal(bodies[2]!.notifyMs - bodies[0]!.notifyMs, 1000, 'notifyMs is refreshed on each resend');
      assert.equal(bodies[2]!.payload.sendts, bodies[0]!.payload.sendts);
      const [rec] = await m.deliveries({ sid: 'sid-r' });
      assert.deepEqual(rec?.attempts.map((a) => [a.attempt, a.httpStatus]), [[1, 500], [2, 500], [3, 200]]);
    } finally {
      await m.close();
      await rx.close();
      await db.close();
    }
  });

  test(`[${dialect}] a receiver that never answers times out; exhausted retries are kept as failed`, async () => {
    const db = await openTestDatabase(dialect);
    const clock = new ManualClock();
    const rx = await startReceiver((r) => (JSON.parse(r.raw.toString()).payload.sequence === 0 ? 'hang' : 200));
    const m = await startNotify({ database: db, clock, url: rx.url, notify: { timeoutMs: 200, retryDelaysMs: [0, 1000, 2000] } });
    try {
      await m.emit(event('sid-t', 40));
      await m.emit(event('sid-t', 11, { msgName: 'session_exit', exitStatus: 0 }));
      // Each step: the request arrives, the clock passes the timeout, the failure is stored, the retry delay passes.
      for (const [n, delay] of [[1, 0], [2, 1000], [3, 2000], [4, 0]] as const) {
        await waitUntil(() => rx.received.length === n, { what: `request ${n}` });
        clock.advance(200);
        await waitUntil(async () => (await m.deliveries({ sid: 'sid-t' }))[0]?.attempts.length === n, { what: `attempt ${n} stored` });
        clock.advance(delay);
      }
      const recs = await waitUntil(async () => {
        const d = await m.deliveries({ sid: 'sid-t' });
        return d[1]?.status === 'delivered' ? d : undefined;
      }, { what: 'sequence 1 delivered after 0 failed' });
      const failed = recs[0]!;
      assert.equal(failed.status, 'failed');
      assert.equal(failed.attempts.length, 4, 'first send and 3 retries');
      assert.ok(failed.attempts.every((a) => a.httpStatus === null && a.error === 'no answer within 200 ms' && a.durationMs === 200));
      assert.equal(failed.lastError, 'no answer within 200 ms');
      assert.equal(failed.nextAttemptMs, null);
      assert.equal(rx.received.length, 5);
    } finally {
      await m.close();
      await rx.close();
      await db.close();
    }
  });

  test(`[${dialect}] pending deliveries survive a restart and resume in order`, async () => {
    const db = await openTestDatabase(dialect);
    const clock = new ManualClock();
    let up = false;
    const rx = await startReceiver((r) => {
      const sid = JSON.parse(r.raw.toString()).payload.sid as string;
      return up ? 200 : sid === 'sid-hang' ? 'hang' : 503;
    });
    const first = await startNotify({ database: db, clock, url: rx.url, notify: { retryDelaysMs: [30_000] } });
    await first.emit(event('sid-x', 40));
    await first.emit(event('sid-x', 30, { msgName: 'uploader_started', status: 0 }));
    await first.emit(event('sid-hang', 40));
    await waitUntil(async () => rx.received.length === 2, { what: 'one attempt each' });
    await waitUntil(async () => (await first.deliveries({ sid: 'sid-x' }))[0]?.attempts.length === 1, { what: 'sid-x waits for its retry' });
    await first.close(); // the sid-hang request is still in flight: it is given back, not counted
    const before = await first.deliveries({});
    assert.deepEqual(before.map((d) => [d.sid, d.sequence, d.status, d.attempts.length]), [
      ['sid-hang', 0, 'pending', 0],
      ['sid-x', 0, 'pending', 1],
      ['sid-x', 1, 'pending', 0],
    ]);

    up = true;
    clock.advance(30_000);
    const second = await startNotify({ database: db, clock, url: rx.url, notify: { retryDelaysMs: [30_000] } });
    try {
      await waitUntil(async () => (await second.deliveries({})).every((d) => d.status === 'delivered'), { what: 'all delivered after restart' });
      const resent = rx.bodies().slice(2);
      assert.deepEqual(resent.filter((b) => b.payload.sid === 'sid-x').map((b) => b.payload.sequence), [0, 1]);
      assert.equal(resent.length, 3);
      const [x0] = await second.deliveries({ sid: 'sid-x' });
      assert.deepEqual(x0?.attempts.map((a) => a.httpStatus), [503, 200]);
    } finally {
      await second.close();
      await rx.close();
      await db.close();
    }
  });
  test(`[${dialect}] delivered and skipped events are pruned after the retention; failed ones are kept`, async () => {
    const db = await openTestDatabase(dialect);
    const clock = new ManualClock();
    const rx = await startReceiver((r) => (JSON.parse(r.raw.toString()).payload.sid === 'sid-bad' ? 500 : 200));
    const m = await startNotify({ database: db, clock, url: rx.url, notify: { retentionHours: 1, retryDelaysMs: [] } });
    try {
      await m.emit(event('sid-ok', 40));
      await m.emit(event('sid-bad', 40));
      await m.emit({ ...event('sid-none', 40), appId: 'no-hook-app' });
      await waitUntil(async () => (await m.deliveries({})).every((d) => d.status !== 'pending'), { what: 'settled' });
      clock.advance(2 * 3_600_000);
      await m.emit({ ...event('sid-later', 40), appId: 'no-hook-app' }); // pruning runs alongside emits
      const left = await waitUntil(async () => {
        const d = await m.deliveries({});
        return d.length === 2 ? d : undefined;
      }, { what: 'pruned' });
      assert.deepEqual(left.map((d) => [d.sid, d.status, d.attempts.length]), [
        ['sid-bad', 'failed', 1],
        ['sid-later', 'skipped', 0],
      ]);
    } finally {
      await m.close();
      await rx.close();
      await db.close();
    }
  });
}

test('a private webhook target is refused when private URLs are not allowed; no webhook means skipped, not lost', async () => {
  const db = await openTestDatabase('sqlite');
  const clock = new ManualClock();
  const rx = await startReceiver();
  const m = await startNotify({
    database: db,
    clock,
    url: rx.url,
    notify: { allowPrivateUrls: false, retryDelaysMs: [0] },
  });
  try {
    await m.emit(event('sid-p', 40));
    await m.emit({ ...event('sid-q', 40), appId: 'another-app' });
    const [rec] = await waitUntil(async () => {
      const d = await m.deliveries({ sid: 'sid-p' });
      return d[0]?.status === 'failed' ? d : undefined;
    }, { what: 'refused twice' });
    assert.equal(rec?.attempts.length, 2);
    assert.match(rec?.lastError ?? '', /^refused: URL host 127\.0\.0\.1 is a loopback .*REELTIME_ALLOW_PRIVATE_URLS/);
    assert.equal(rx.received.length, 0);
    const [skipped] = await m.deliveries({ appId: 'another-app' });
    assert.equal(skipped?.status, 'skipped');
    assert.match(skipped?.lastError ?? '', /no webhook configured for app another-app/);
    assert.deepEqual(m.ncsHosts(), ['127.0.0.1']);
    await assert.rejects(m.emit({ ...event('s', 40), sid: '' }), /sid must be a non-empty string/);
  } finally {
    await m.close();
    await rx.close();
    await db.close();
  }
});

test('at most 32 requests are in flight at once; the rest follow as slots free up', async () => {
  const db = await openTestDatabase('sqlite');
  const clock = new ManualClock();
  const rx = await startReceiver(() => 'hang');
  const m = await startNotify({ database: db, clock, url: rx.url });
  try {
    for (let i = 0; i < 40; i++) await m.emit(event(`sid-${i}`, 40));
    await waitUntil(() => rx.received.length === 32, { what: '32 in flight' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.received.length, 32);
    rx.release();
    await waitUntil(() => rx.received.length === 40, { what: 'the other 8 sent' });
    rx.release();
    await waitUntil(async () => (await m.deliveries({})).every((d) => d.status === 'delivered'), { what: 'all delivered' });
  } finally {
    await m.close();
    await rx.close();
    await db.close();
  }
});

test('two processes on one PostgreSQL database send each event once, in order per session', async () => {
  const db = await openTestDatabase('postgres');
  const clock = new ManualClock();
  const rx = await startReceiver();
  const a = await startNotify({ database: db, clock, url: rx.url });
  let b: Awaited<ReturnType<typeof startNotify>> | undefined;
  try {
    const emits: Promise<void>[] = [];
    for (let i = 0; i < 12; i++) emits.push(a.emit(event(`sid-${i % 3}`, 40 + (i % 2))));
    b = await startNotify({ database: db, clock, url: rx.url }); // resumes whatever is still pending meanwhile
    await Promise.all(emits);
    await waitUntil(async () => (await a.deliveries({})).every((d) => d.status === 'delivered'), { what: 'all delivered' });
    const bodies = rx.bodies();
    assert.equal(bodies.length, 12);
    assert.equal(new Set(bodies.map((x) => x.noticeId)).size, 12);
    for (const sid of ['sid-0', 'sid-1', 'sid-2']) {
      assert.deepEqual(bodies.filter((x) => x.payload.sid === sid).map((x) => x.payload.sequence), [0, 1, 2, 3]);
    }
  } finally {
    await b?.close();
    await a.close();
    await rx.close();
    await db.close();
  }
});
