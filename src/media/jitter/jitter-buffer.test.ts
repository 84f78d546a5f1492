import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JitterBuffer, RECORDING_JITTER_BOUNDS, type JitterOutput } from './jitter-buffer.ts';

interface P {
  readonly seq: number;
  readonly timestamp: number;
  readonly ssrc: number;
}
const pkt = (seq: number, ssrc = 1): P => ({ seq: seq & 0xffff, timestamp: (seq * 960) >>> 0, ssrc });
/** Polls every 50 ms from `fromMs` to `toMs` (a running process whose timers fire), collecting the outputs. */
function pollEvery50(b: JitterBuffer<P>, fromMs: number, toMs: number): JitterOutput<P>[] {
  const out: JitterOutput<P>[] = [];
  for (let t = fromMs; t <= toMs; t += 50) out.push(...b.poll(t));
  return out;
}
const show = (o: readonly JitterOutput<P>[]) => o.map((x) => (x.kind === 'packet' ? x.packet.seq : x.kind === 'gap' ? `gap${x.firstSeq}x${x.count}` : 'reset'));

test('in-order packets pass at once', () => {
  const b = new JitterBuffer<P>(48000);
  assert.deepEqual(show(b.push(pkt(10), 0)), [10]);
  assert.deepEqual(show(b.push(pkt(11), 20)), [11]);
  assert.equal(b.deadline(20), undefined);
});

test('a reordered packet is put back in order; a retransmission in time fills the hole', () => {
  const b = new JitterBuffer<P>(48000);
  b.push(pkt(1), 0);
  assert.deepEqual(show(b.push(pkt(3), 20)), []);
  assert.deepEqual(show(b.push(pkt(4), 40)), []);
  // 20 ms of media behind the hole so far: less than the hold, so only a stalled stream's deadline.
  assert.equal(b.deadline(40), 20 + 10 * 400);
  assert.deepEqual(show(b.push(pkt(2), 45)), [2, 3, 4]);
  assert.equal(b.stats.missing, 1);
  assert.equal(b.stats.repaired, 1);
  assert.equal(b.stats.lost, 0);
});

test('a hole is given up once the hold passed on the wall clock and in media time; a packet coming later is late', () => {
  const b = new JitterBuffer<P>(48000);
  b.push(pkt(1), 0);
  b.push(pkt(3), 20);
  b.push(pkt(4), 25);
  b.push(pkt(5), 30);
  b.push(pkt(6), 35); // 60 ms of media behind the hole, 15 ms of wall time
  assert.equal(b.deadline(35), 70);
  assert.deepEqual(show(b.poll(69)), []);
  assert.deepEqual(show(b.poll(70)), ['gap2x1', 3, 4, 5, 6]);
  assert.deepEqual(show(b.push(pkt(2), 90)), []);
  assert.deepEqual(show(b.push(pkt(3), 91)), []);
  assert.deepEqual({ lost: b.stats.lost, late: b.stats.late, duplicates: b.stats.duplicates }, { lost: 1, late: 1, duplicates: 1 });
});

test('the hold adapts to the repair delay seen (a late packet raises it), within 50–400 ms, and decays', () => {
  const b = new JitterBuffer<P>(48000);
  assert.equal(b.holdMs(0), 50);
  b.push(pkt(1), 0);
  b.push(pkt(3), 20);
  b.push(pkt(6), 30);
  b.poll(70);
  b.poll(100);
  b.push(pkt(2), 20 + 120); // came 120 ms after its hole was noticed
  assert.equal(b.holdMs(140), 1.5 * 120 + 10);
  b.push(pkt(7), 160);
  b.push(pkt(9), 180);
  b.push(pkt(12), 190);
  pollEvery50(b, 200, 1150);
  b.push(pkt(8), 180 + 1000); // a second late one, 1 s: clamped
  assert.equal(b.holdMs(1180), 400);
  assert.ok(b.holdMs(1180 + 60_000) < 100, `decayed: ${b.holdMs(1180 + 60_000)}`);
});

test('sequence numbers wrap around 65535', () => {
  const b = new JitterBuffer<P>(48000);
  b.push(pkt(65534), 0);
  assert.deepEqual(show(b.push(pkt(0), 10)), []);
  assert.deepEqual(show(b.push(pkt(65535), 15)), [65535, 0]);
  assert.deepEqual(show(b.push(pkt(2), 20)), []);
  assert.deepEqual(show(b.push(pkt(5), 30)), []);
  assert.deepEqual(show(b.poll(100)), ['gap1x1', 2]);
});

test('after a stall of the process, a hole is not given up before the packets read meanwhile are seen', () => {
  const b = new JitterBuffer<P>(48000, RECORDING_JITTER_BOUNDS);
  b.push(pkt(1), 0);
  b.push(pkt(3), 20);
  // 2 s without a packet read (the event loop was blocked): the timer fires first.
  assert.deepEqual(show(b.poll(2000)), []);
  // Then the packets queued meanwhile come in a burst: 400 ms of media at once, 50 ms of running time.
  for (let s = 4; s <= 23; s++) assert.deepEqual(show(b.push(pkt(s), 2001)), []);
  // The retransmission asked for after the stall comes 30 ms later: still in time.
  assert.deepEqual(show(b.push(pkt(2), 2031)), [2, 3, ...Array.from({ length: 20 }, (_, i) => 4 + i)]);
  // A stream that went quiet after a hole gives it up after 10 × 2000 ms of running time.
  b.push(pkt(25), 2040);
  assert.deepEqual(show(pollEvery50(b, 2090, 2040 + 19_950)), []);
  assert.deepEqual(show(pollEvery50(b, 2040 + 20_000, 2040 + 20_000)), ['gap24x1', 25]);
});

test('a new SSRC or a large jump starts over; flush gives up every hole', () => {
  const b = new JitterBuffer<P>(48000);
  b.push(pkt(1), 0);
  b.push(pkt(3), 5);
  assert.deepEqual(show(b.push(pkt(500, 2), 10)), ['gap2x1', 3, 'reset', 500]);
  assert.deepEqual(show(b.push(pkt(9000, 2), 20)), ['reset', 9000]);
  b.push(pkt(9002, 2), 30);
  assert.deepEqual(show(b.flush()), ['gap9001x1', 9002]);
});

test('more than maxPackets held releases without waiting', () => {
  const b = new JitterBuffer<P>(48000, { minMs: 50, maxMs: 400, maxPackets: 3 });
  b.push(pkt(1), 0);
  for (let s = 3; s <= 5; s++) assert.deepEqual(show(b.push(pkt(s), 1)), []);
  assert.deepEqual(show(b.push(pkt(6), 1)), ['gap2x1', 3, 4, 5, 6]);
});

test('interarrival jitter raises the hold', () => {
  const b = new JitterBuffer<P>(48000);
  // 20 ms packets arriving alternately 0 and 60 ms late.
  for (let i = 0; i < 200; i++) b.push(pkt(i), i * 20 + (i % 2) * 60);
  assert.ok(b.holdMs(4000) > 100, `hold ${b.holdMs(4000)}`);
});
