import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gilbertElliottLoss, gilbertForBursts, LinkScheduler, randomLoss, seededRandom, TokenBucketShaper } from './index.ts';

const N = 100_000;

/** Lengths of the runs of lost datagrams. */
function bursts(lost: readonly boolean[]): number[] {
  const out: number[] = [];
  let run = 0;
  for (const l of lost) {
    if (l) run++;
    else if (run > 0) {
      out.push(run);
      run = 0;
    }
  }
  if (run > 0) out.push(run);
  return out;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('seeded PRNG: same seed, same sequence; uniform mean and range', () => {
  const a = seededRandom(42);
  const b = seededRandom(42);
  const c = seededRandom(43);
  const xs = Array.from({ length: N }, () => a());
  assert.deepEqual(xs.slice(0, 10), Array.from({ length: 10 }, () => b()));
  assert.notEqual(xs[0], c());
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  assert.ok(Math.abs(mean(xs) - 0.5) < 0.005, `mean ${mean(xs)}`);
});

test('random loss: 5 % over 100k datagrams, bursts as short as chance makes them', () => {
  const model = randomLoss(0.05, seededRandom(1));
  const lost = Array.from({ length: N }, () => model.next() !== undefined);
  const rate = lost.filter(Boolean).length / N;
  assert.ok(Math.abs(rate - 0.05) < 0.003, `loss rate ${rate}`);
  // Independent loss: mean run 1 / (1 - p) ≈ 1.05.
  assert.ok(Math.abs(mean(bursts(lost)) - 1 / 0.95) < 0.03);
});

test('Gilbert–Elliott: 2 % loss in bursts of mean 3 datagrams', () => {
  const model = gilbertElliottLoss(gilbertForBursts(0.02, 3), seededRandom(7));
  const lost = Array.from({ length: N }, () => model.next() === 'burst');
  const rate = lost.filter(Boolean).length / N;
  assert.ok(Math.abs(rate - 0.02) < 0.004, `loss rate ${rate}`);
  const b = bursts(lost);
  assert.ok(Math.abs(mean(b) - 3) < 0.3, `mean burst ${mean(b)}`);
  assert.ok(b.some((x) => x >= 5), 'bursts longer than the mean occur');
});

test('gilbertForBursts refuses a rate of 1 or a burst under one datagram, naming it', () => {
  assert.throws(() => gilbertForBursts(1, 3), /burst loss rate/);
  assert.throws(() => gilbertForBursts(0.1, 0.5), /mean burst length/);
});

test('token bucket: a 1 Mbit/s cap delivers 1 Mbit/s of a 2 Mbit/s offer and drops the rest at the queue', () => {
  const shaper = new TokenBucketShaper({ bitsPerSecond: 1_000_000, burstBytes: 10_000, queueBytes: 20_000 });
  // 1000-byte datagrams every 4 ms = 2 Mbit/s for 100 s.
  let sent = 0;
  let last = 0;
  for (let i = 0; i < 25_000; i++) {
    const at = shaper.admit(i * 4, 1000);
    if (at === undefined) continue;
    assert.ok(at >= last, 'departures keep their order');
    last = at;
    sent++;
  }
  const mbps = (sent * 8000) / (last / 1000) / 1e6;
  assert.ok(Math.abs(mbps - 1) < 0.02, `throughput ${mbps} Mbit/s`);
  assert.ok(Math.abs(sent / 25_000 - 0.5) < 0.01, `share admitted ${sent / 25_000}`);
});

test('token bucket: under the cap nothing waits; a burst up to the bucket goes at once', () => {
  const shaper = new TokenBucketShaper({ bitsPerSecond: 1_000_000, burstBytes: 5000, queueBytes: 1000 });
  for (let i = 0; i < 1000; i++) assert.equal(shaper.admit(i * 10, 1000), i * 10, 'an 800 kbit/s stream is not delayed');
  const t = 100_000;
  for (let i = 0; i < 5; i++) assert.equal(shaper.admit(t, 1000), t);
  assert.ok(shaper.admit(t, 1000)! > t, 'the sixth waits in the queue');
  assert.equal(shaper.admit(t, 1000), undefined, 'the queue holds one more datagram, not two');
});

test('scheduler: counters add up; loss, reordering and duplication shares over 100k datagrams', () => {
  const link = new LinkScheduler({ loss: 0.05, reorder: 0.02, duplicate: 0.01, delayMs: 30, jitterMs: 10 }, seededRandom(3));
  let reorderedSeen = 0;
  let maxOut = Number.NEGATIVE_INFINITY;
  const sends: number[] = [];
  for (let i = 0; i < N; i++) {
    const v = link.decide(i * 5, 100);
    if (v.kind === 'send') sends.push(v.at[0]!);
  }
  // A datagram released before one that arrived earlier has been overtaken.
  for (const at of sends) {
    if (at < maxOut) reorderedSeen++;
    maxOut = Math.max(maxOut, at);
  }
  const c = link.counters;
  assert.equal(c.packetsIn, N);
  assert.equal(c.bytesIn, N * 100);
  assert.equal(c.dropped.random + sends.length, N);
  assert.equal(c.packetsOut, sends.length + c.duplicated);
  assert.ok(Math.abs(c.dropped.random / N - 0.05) < 0.003);
  assert.ok(Math.abs(c.reordered / sends.length - 0.02) < 0.002, `reordered ${c.reordered}`);
  assert.ok(Math.abs(c.duplicated / sends.length - 0.01) < 0.002, `duplicated ${c.duplicated}`);
  assert.equal(c.delayed, sends.length, 'every datagram is delayed by 30 ± 10 ms');
  // Held back 20 ms with 5 ms spacing: each reordered datagram is overtaken by later ones; jitter alone does not reorder.
  assert.ok(reorderedSeen > 0 && reorderedSeen <= c.reordered * 4, `seen ${reorderedSeen} vs ${c.reordered}`);
});

test('scheduler: jitter keeps the order and averages the delay; a clean link sends at once', () => {
  const link = new LinkScheduler({ delayMs: 50, jitterMs: 30 }, seededRandom(9));
  const delays: number[] = [];
  let last = 0;
  for (let i = 0; i < N; i++) {
    // 100 ms apart (more than the jitter's 60 ms spread): the order never holds a datagram back.
    const v = link.decide(i * 100, 100);
    assert.equal(v.kind, 'send');
    const at = (v as { at: readonly number[] }).at[0]!;
    assert.ok(at >= last);
    last = at;
    delays.push(at - i * 100);
  }
  assert.ok(Math.abs(mean(delays) - 50) < 0.5, `mean delay ${mean(delays)}`);
  assert.ok(Math.min(...delays) >= 20 && Math.max(...delays) <= 80);
  // 5 ms apart: jitter alone still never reorders.
  const dense = new LinkScheduler({ delayMs: 50, jitterMs: 30 }, seededRandom(9));
  let prev = 0;
  for (let i = 0; i < 10_000; i++) {
    const v = dense.decide(i * 5, 100) as { readonly at: readonly number[] };
    assert.ok(v.at[0]! >= prev);
    prev = v.at[0]!;
  }
  const clean = new LinkScheduler({}, seededRandom(1));
  assert.deepEqual(clean.decide(123, 10), { kind: 'send', at: [123] });
  assert.equal(clean.counters.delayed, 0);
});

test('scheduler: the same seed drops the same datagrams; bad shares are refused by name', () => {
  const run = (seed: number) => {
    const link = new LinkScheduler({ loss: 0.1, burst: gilbertForBursts(0.02, 4) }, seededRandom(seed));
    return Array.from({ length: 1000 }, (_, i) => link.decide(i, 10).kind).join('');
  };
  assert.equal(run(5), run(5));
  assert.notEqual(run(5), run(6));
  assert.throws(() => new LinkScheduler({ loss: 5 }, seededRandom(1)), /loss must be a share/);
  assert.throws(() => new LinkScheduler({ delayMs: -1 }, seededRandom(1)), /must not be negative/);
});
