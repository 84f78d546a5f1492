// The outbox's own rules, against a write that fails while a flag says the database is away: order per key,
// batches, back-off on the clock, the bound, giving up, the journal left at close and taken over by the next start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../clock/index.ts';
import { createLogger } from '../log/index.ts';
import { Outbox, type OutboxError, type OutboxOptions } from './outbox.ts';
import { settle, waitUntil } from '../testing/wait.ts';

interface Item {
  readonly n: number;
}


function harness(dir: string | undefined, over: Partial<OutboxOptions<Item>> = {}) {
  const clock = new ManualClock();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  const state = { away: false, writes: [] as number[][] };
  const outbox = new Outbox<Item>({
    name: 'test-items',
    clock,
    log,
    write: async (items) => {
      if (state.away) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      state.writes.push(items.map((i) => i.n));
    },
    maxBatch: 3,
    maxItems: 5,
    retryBaseMs: 250,
    retryMaxMs: 5000,
    retryForMs: 60_000,
    dir,
    ...over,
  });
  return { clock, lines, state, outbox };
}

test('outbox: kept in order per key while the write fails, retried on the clock with back-off, batched', async () => {
  const h = harness(undefined);
  await h.outbox.submit('a', { n: 1 });
  assert.deepEqual(h.state.writes, [[1]]);

  h.state.away = true;
  const kept = [h.outbox.submit('a', { n: 2 }), h.outbox.submit('a', { n: 3 }), h.outbox.submit('b', { n: 10 })];
  await settle();
  assert.equal(h.outbox.size, 3);
  // Back-off 250, 500, 1000 ms: three more failed tries in 1750 ms.
  h.clock.advance(1750);
  await settle();
  assert.equal(h.state.writes.length, 1, 'nothing written while away');
  const late = h.outbox.submit('a', { n: 4 });
  h.state.away = false;
  h.clock.advance(2000);
  await settle();
  await Promise.all([...kept, late]);
  // Key a: its kept items and the one that came behind them, together and in order; key b on its own.
  assert.deepEqual(h.state.writes.slice(1).sort((x, y) => x[0]! - y[0]!), [[2, 3, 4], [10]]);
  assert.equal(h.outbox.size, 0);
  assert.ok(h.lines.some((l) => l.msg === 'outbox: write failed; kept and retried' && l.key === 'a'));
  assert.equal(h.clock.pendingCount, 0, 'no timer left');
});

test('outbox: bounded in count and in time; a permanent refusal drops only that item', async () => {
  const h = harness(undefined, { isPermanent: (e) => (e as Error).message === 'refused' });
  h.state.away = true;
  const kept = [1, 2, 3, 4, 5].map((n) => h.outbox.submit('a', { n }));
  for (const p of kept) p.catch(() => undefined);
  await assert.rejects(h.outbox.submit('a', { n: 6 }), (e: OutboxError) => e.reason === 'full');
  // Given up one by one once they have waited retryForMs (60 s here).
  for (let i = 0; i < 20; i++) {
    h.clock.advance(5000);
    await settle();
  }
  for (const p of kept) await assert.rejects(p, (e: OutboxError) => e.reason === 'given_up');
  assert.equal(h.outbox.size, 0);

  let refuse = true;
  const h2 = harness(undefined, {
    isPermanent: (e) => (e as Error).message === 'refused',
    maxBatch: 1,
    write: async (items) => {
      if (refuse && items[0]!.n === 1) throw new Error('refused');
      refuse = false;
      h2.state.writes.push(items.map((i) => i.n));
    },
  });
  const first = h2.outbox.submit('k', { n: 1 });
  const second = h2.outbox.submit('k', { n: 2 });
  await assert.rejects(first, (e: OutboxError) => e.reason === 'permanent');
  await second;
  assert.deepEqual(h2.state.writes, [[2]]);
});

test('outbox: a stop during the outage flushes for its bound, leaves the rest in the journal; the next start writes it once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-outbox-'));
  try {
    const h = harness(dir);
    h.state.away = true;
    const kept = [h.outbox.submit('a', { n: 1 }), h.outbox.submit('a', { n: 2 }), h.outbox.submit('b', { n: 3 })];
    for (const p of kept) p.catch(() => undefined);
    // Journalled as soon as kept: a SIGKILL now would leave them on disk too.
    await waitUntil(() => readdirSync(dir).length > 0 && readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8').trim().split('\n').length === 3, {
      what: 'three lines in the journal file',
    });
    const [file] = readdirSync(dir);
    assert.match(file!, /^test-items\..+\.\d+\.[0-9a-f]+\.jsonl$/);
    assert.equal(readFileSync(join(dir, file!), 'utf8').trim().split('\n').length, 3);

    const closing = h.outbox.close(5000);
    h.clock.advance(4999);
    await settle();
    assert.equal(h.state.writes.length, 0);
    h.clock.advance(1);
    assert.equal(await closing, 3);
    for (const p of kept) await assert.rejects(p, (e: OutboxError) => e.reason === 'left_in_journal');
    assert.ok(h.lines.some((l) => l.msg === 'outbox: items not written before the stop are kept on disk for the next start' && l.items === 3));

    // The journal of a process that is gone (a pid no longer running) is taken by the next start.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    renameSync(join(dir, file!), join(dir, file!.replace(/\.\d+\.([0-9a-f]+\.jsonl)$/, `.${dead}.$1`)));
    const next = harness(dir);
    assert.equal(await next.outbox.replay(), 3);
    await settle();
    assert.deepEqual(next.state.writes.sort((x, y) => x[0]! - y[0]!), [[1, 2], [3]]);
    // Taken over, written, and marked so: a third start finds nothing to write.
    const third = harness(dir);
    assert.equal(await third.outbox.replay(), 0);
    assert.equal(await next.outbox.close(1000), 0);
    assert.equal(await third.outbox.close(1000), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('outbox: the journal of a live process is left alone; one of a server closed earlier in this process is taken', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'reeltime-outbox-'));
  try {
    const a = harness(dir);
    a.state.away = true;
    a.outbox.submit('a', { n: 1 }).catch(() => undefined);
    await settle();
    const b = harness(dir);
    assert.equal(await b.outbox.replay(), 0, 'a is still open');
    const closing = a.outbox.close(10);
    a.clock.advance(10);
    assert.equal(await closing, 1);
    assert.equal(await b.outbox.replay(), 1, 'a is closed: its journal is taken');
    await settle();
    assert.deepEqual(b.state.writes, [[1]]);
    await b.outbox.close(10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
