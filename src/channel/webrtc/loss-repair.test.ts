import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtcpPacketConverter, TransportWideCC } from 'werift';
import { NackTracker } from './nack-tracker.ts';
import { RetransmitCache } from './retransmit-cache.ts';
import { TwccFeedback } from './twcc.ts';

test('NackTracker: a gap is NACKed at once, retried every round trip, given up when a retransmission could not arrive in time', () => {
  const n = new NackTracker({ deadlineMs: 500, minRetryMs: 20, initialRttMs: 100 });
  n.observe(10, 0);
  n.observe(13, 5); // 11 and 12 missing
  assert.deepEqual(n.due(5), { nack: [11, 12], lost: [] });
  assert.deepEqual(n.due(50), { nack: [], lost: [] }, 'not again within the retry interval (1.2 × 100 ms)');
  assert.deepEqual(n.due(125), { nack: [11, 12], lost: [] });
  assert.deepEqual(n.observe(12, 130), { repaired: true, late: false, duplicate: false });
  assert.equal(n.observe(12, 131).duplicate, true, 'a second copy');
  assert.equal(n.observe(10, 131).duplicate, true);
  // Once a retransmission asked for now (arriving one round trip later) would miss 5 + 500 ms, 11 is given up.
  assert.deepEqual(n.due(245), { nack: [11], lost: [] });
  assert.deepEqual(n.due(406), { nack: [], lost: [11] });
  assert.equal(n.missing, 0);
  assert.deepEqual(n.observe(11, 600), { repaired: false, late: true, duplicate: false });
});

test('NackTracker: the round trip is learnt from repairs NACKed once; sequence numbers wrap', () => {
  const n = new NackTracker({ initialRttMs: 100, minRetryMs: 5 });
  n.observe(65534, 0);
  n.observe(1, 0); // 65535 and 0 missing
  assert.deepEqual(n.due(0).nack, [65535, 0]);
  for (let i = 0; i < 40; i++) {
    n.observe((2 + 2 * i) & 0xffff, i * 100);
    n.observe((4 + 2 * i) & 0xffff, i * 100); // one missing each time
    n.due(i * 100);
    n.observe((3 + 2 * i) & 0xffff, i * 100 + 30); // repaired 30 ms after its NACK
  }
  assert.ok(Math.abs(n.rttMs - 30) < 5, `rtt ${n.rttMs}`);
});

test('NackTracker: a jump beyond maxMissing (a new numbering) is not NACKed; reordering is not a repair', () => {
  const n = new NackTracker({ maxMissing: 100 });
  n.observe(100, 0);
  n.observe(5000, 0);
  assert.deepEqual(n.due(0), { nack: [], lost: [] });
  n.observe(5002, 1);
  assert.equal(n.observe(5001, 2).duplicate, false, 'reordered, not a copy');
  assert.equal(n.missing, 0);
});

test('RetransmitCache: bounded by age and bytes, one resend per minResendMs, resends within half of what was sent', () => {
  const c = new RetransmitCache<string>({ maxAgeMs: 1000, maxBytes: 3000, minResendMs: 10 });
  for (let s = 0; s < 5; s++) c.put(s, `p${s}`, 1000, s * 10);
  assert.equal(c.size, 3, 'bytes bound keeps the newest three');
  assert.deepEqual(c.take(0, 50), { kind: 'missing' });
  assert.deepEqual(c.take(3, 50), { kind: 'resend', item: 'p3' });
  assert.deepEqual(c.take(3, 55), { kind: 'recently_resent' });
  // The budget: half of what was put, at most half of maxBytes (1500); 1000 of it went on the first resend.
  assert.deepEqual(c.take(3, 61), { kind: 'over_budget' });
  c.put(5, 'p5', 1000, 62);
  assert.deepEqual(c.take(3, 63), { kind: 'resend', item: 'p3' }, 'earned again by what was sent since');
  assert.deepEqual(c.take(4, 1041), { kind: 'missing' }, 'older than maxAgeMs: gone');
  assert.deepEqual(c.take(5, 1063), { kind: 'missing' });
  assert.equal(c.bytes, 0);
});

interface Parsed {
  readonly baseSequenceNumber: number;
  readonly packetStatusCount: number;
  readonly fbPktCount: number;
  readonly packetResults: { sequenceNumber: number; received: boolean; delta: number }[];
}

/**
 * Reads a feedback packet: the header fields with werift's parser, the chunks and deltas by the draft's layout
 * (werift's own `packetResults` reads run-length chunks only).
 */
function parse(b: Buffer): Parsed {
  const [p] = RtcpPacketConverter.deSerialize(b);
  assert.ok(p && 'feedback' in p && p.feedback instanceof TransportWideCC, 'a TWCC feedback packet');
  const fb = p.feedback;
  const statuses: number[] = [];
  let o = 20;
  while (statuses.length < fb.packetStatusCount) {
    const c = b.readUInt16BE(o);
    o += 2;
    if ((c & 0x8000) === 0) for (let i = 0; i < (c & 0x1fff); i++) statuses.push((c >> 13) & 3);
    else if (c & 0x4000) for (let k = 0; k < 7; k++) statuses.push((c >> (12 - 2 * k)) & 3);
    else for (let k = 0; k < 14; k++) statuses.push((c >> (13 - k)) & 1);
  }
  statuses.length = fb.packetStatusCount;
  const packetResults = statuses.map((st, i) => {
    let delta = 0;
    if (st === 1) delta = b[o++]! * 250;
    else if (st === 2) {
      delta = b.readInt16BE(o) * 250;
      o += 2;
    }
    return { sequenceNumber: (fb.baseSequenceNumber + i) & 0xffff, received: st !== 0, delta };
  });
  return { baseSequenceNumber: fb.baseSequenceNumber, packetStatusCount: fb.packetStatusCount, fbPktCount: fb.fbPktCount, packetResults };
}

test('TwccFeedback: arrival times and losses as a transport-cc feedback packet another parser reads back', () => {
  const f = new TwccFeedback();
  const t0 = 1_000_000_123; // µs
  const arrivals: [number, number][] = [];
  for (let s = 65530; s < 65530 + 30; s++) {
    if (s % 7 === 5) continue; // lost (not the first: the first feedback starts at the first arrival)
    const at = t0 + (s - 65530) * 1500 + (s === 65545 ? 90_000 : 0); // one 90 ms late (a large delta)
    arrivals.push([s & 0xffff, at]);
  }
  // Delivered out of order: reordering does not change what is reported.
  for (const [s, at] of [...arrivals].reverse()) f.record(s, at);
  const bytes = f.build(1, 2)!;
  assert.equal(bytes.length % 4, 0);
  const fb = parse(bytes);
  assert.equal(fb.baseSequenceNumber, 65530);
  assert.equal(fb.packetStatusCount, 30);
  assert.equal(fb.fbPktCount, 0);
  const results = fb.packetResults;
  assert.equal(results.length, 30);
  const byArrival = new Map(arrivals);
  let prev = Math.floor(t0 / 64000) * 64000;
  for (const r of results) {
    const at = byArrival.get(r.sequenceNumber);
    assert.equal(r.received, at !== undefined, `seq ${r.sequenceNumber}`);
    if (at === undefined) continue;
    assert.ok(Math.abs(prev + r.delta - at) <= 250, `seq ${r.sequenceNumber}: delta ${r.delta} µs`);
    prev += r.delta;
  }
  assert.equal(f.build(1, 2), undefined, 'nothing new, nothing sent');
  f.record(28, t0 + 100_000);
  const next = parse(f.build(1, 2)!);
  assert.equal(next.baseSequenceNumber, 24, 'the next feedback starts after the last one');
  assert.equal(next.fbPktCount, 1);
  assert.deepEqual(next.packetResults.map((r) => r.received), [false, false, false, false, true]);
});
