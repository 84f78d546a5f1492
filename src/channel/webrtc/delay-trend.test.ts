import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtcpPacketConverter, RtcpTransportLayerFeedback } from 'werift';
import { DelayTrend } from './delay-trend.ts';
import { adaptedLayer, adaptToDelay, startAdaptation } from './layer-adaptation.ts';
import { parseTwccFeedback, TwccFeedback } from './twcc.ts';

/**
 * A sender of `bps` (packets of 1,000 bytes, paced evenly, a 20 kB keyframe burst every 2 s when `keyframes`) through
 * a link of `linkBps` with 20 ms of delay and up to `jitterMs` of jitter; feedback every 50 ms. Returns the time
 * (ms) at which the trend had said overuse for 500 ms without a break (what moves a viewer), or undefined.
 */
function simulate(opts: {
  bps: number;
  linkBps: number;
  seconds: number;
  jitterMs?: number;
  keyframes?: boolean;
  capFromMs?: number;
  /** The viewer's process stalls for this long from 3 s on: what arrives meanwhile is stamped when it wakes. */
  stallMs?: number;
  seed?: number;
}): number | undefined {
  const trend = new DelayTrend();
  const twcc = new TwccFeedback();
  let seed = opts.seed ?? 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const sends: number[] = [];
  const interval = (1000 * 8 * 1000) / opts.bps;
  for (let t = 0; t < opts.seconds * 1000; t += interval) sends.push(t);
  if (opts.keyframes) for (let k = 0; k < opts.seconds / 2; k++) for (let i = 0; i < 20; i++) sends.push(k * 2000 + 1 + i * 0.1);
  sends.sort((a, b) => a - b);
  let linkFreeAt = 0;
  let nextFeedback = 50;
  let seq = 0;
  const arrivals: { at: number; seq: number }[] = [];
  let firstOveruse: number | undefined;
  const flush = (now: number) => {
    for (const a of arrivals.splice(0).sort((x, y) => x.at - y.at)) twcc.record(a.seq, a.at * 1000);
    const packet = twcc.build(1, 2);
    if (!packet) return;
    const signal = trend.feedback(parseTwccFeedback(packet)!.results);
    if (signal === 'overuse' && trend.overuseForMs >= 500 && firstOveruse === undefined) firstOveruse = now;
  };
  for (const sentAt of sends) {
    while (sentAt >= nextFeedback) {
      flush(nextFeedback);
      nextFeedback += 50;
    }
    const s = seq++ & 0xffff;
    trend.sent(s, sentAt);
    const capped = opts.capFromMs === undefined || sentAt >= opts.capFromMs;
    const bps = capped ? opts.linkBps : Number.POSITIVE_INFINITY;
    const leaves = Math.max(sentAt, linkFreeAt) + (1000 * 8 * 1000) / bps;
    linkFreeAt = leaves;
    let at = leaves + 20 + (opts.jitterMs ?? 0) * random();
    if (opts.stallMs && at >= 3000 && at < 3000 + opts.stallMs) at = 3000 + opts.stallMs + (at - 3000) / 100;
    arrivals.push({ at, seq: s });
  }
  flush(nextFeedback);
  return firstOveruse;
}

test('DelayTrend: a link with room (jitter, keyframe bursts) reads no lasting overuse; a queue growing behind a narrow link reads overuse for 500 ms within 1.5 s', () => {
  assert.equal(simulate({ bps: 600_000, linkBps: 2_000_000, seconds: 20 }), undefined, 'room to spare');
  assert.equal(simulate({ bps: 600_000, linkBps: 2_000_000, seconds: 20, jitterMs: 10 }), undefined, '10 ms of jitter');
  assert.equal(simulate({ bps: 600_000, linkBps: 2_000_000, seconds: 20, keyframes: true }), undefined, 'keyframe bursts that drain');
  for (const stallMs of [100, 300, 600]) assert.equal(simulate({ bps: 600_000, linkBps: 2_000_000, seconds: 10, keyframes: true, stallMs }), undefined, `a ${stallMs} ms stall of the viewer`);
  // 600 kbit/s into 450 from 5 s on: the queue grows by a third of a second each second.
  const at = simulate({ bps: 600_000, linkBps: 450_000, seconds: 10, capFromMs: 5000, jitterMs: 5, keyframes: true });
  assert.ok(at !== undefined && at >= 5500 && at < 6500, `overuse for 500 ms at ${at} ms (cap at 5000)`);
  console.log(`narrow link: overuse for 500 ms at ${at} ms, the cap from 5000 ms`);
});

test('parseTwccFeedback reads what TwccFeedback writes, also after werift parsed and wrote it again (the node reads it that way)', () => {
  const f = new TwccFeedback();
  const t0 = 5_000_000;
  const arrivals = new Map<number, number>();
  for (let s = 65520; s < 65520 + 40; s++) {
    if (s % 9 === 4) continue;
    arrivals.set(s & 0xffff, t0 + (s - 65520) * 1250 + (s === 65540 ? 120_000 : 0));
  }
  for (const [s, at] of arrivals) f.record(s, at);
  const bytes = f.build(11, 22)!;
  const direct = parseTwccFeedback(bytes)!;
  const [viaWerift] = RtcpPacketConverter.deSerialize(bytes);
  assert.ok(viaWerift instanceof RtcpTransportLayerFeedback);
  const again = parseTwccFeedback(viaWerift.serialize())!;
  for (const parsed of [direct, again]) {
    assert.equal(parsed.mediaSsrc, 22);
    assert.equal(parsed.results.length, 40);
    for (const r of parsed.results) {
      const at = arrivals.get(r.seq);
      assert.equal(r.arrivalUs === undefined, at === undefined, `seq ${r.seq}`);
      // Deltas are in 250 µs ticks from a 64 ms reference.
      if (at !== undefined) assert.ok(Math.abs(r.arrivalUs! - at) <= 250, `seq ${r.seq}: ${r.arrivalUs} vs ${at}`);
    }
  }
  assert.equal(parseTwccFeedback(Buffer.alloc(8)), undefined);
});

test('adaptToDelay: overuse takes a viewer to the low layer, a try back to low with the back-off doubled; normal changes nothing', () => {
  const high = startAdaptation();
  assert.equal(adaptToDelay(high, 'normal', 0), high);
  const low = adaptToDelay(high, 'overuse', 1000);
  assert.equal(adaptedLayer(low), 'low');
  assert.equal(adaptToDelay(low, 'overuse', 2000), low, 'nothing lower');
  const trying = { kind: 'trying', since: 10_000, backoffMs: 8000, lossy: false } as const;
  assert.deepEqual(adaptToDelay(trying, 'overuse', 11_000), { kind: 'low', since: 11_000, backoffMs: 16_000 });
  assert.equal(adaptToDelay(trying, 'underuse', 11_000), trying);
});
