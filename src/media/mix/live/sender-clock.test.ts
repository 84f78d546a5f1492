import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LateSenderClock, ntpToUnixMs, rtpTimestampDelta, SenderClock, unixMsToNtp } from './sender-clock.ts';

test('NTP timestamps convert to Unix milliseconds and back', () => {
  const ms = Date.UTC(2026, 10, 24, 11, 0, 0, 250);
  assert.ok(Math.abs(ntpToUnixMs(unixMsToNtp(ms)) - ms) < 0.001);
  assert.equal(ntpToUnixMs(2_208_988_800n << 32n), 0);
});

test('RTP timestamp differences take the short way round the 32-bit wrap', () => {
  assert.equal(rtpTimestampDelta(10, 0xfffffff0), 26);
  assert.equal(rtpTimestampDelta(0xfffffff0, 10), -26);
  assert.equal(rtpTimestampDelta(48_000, 0), 48_000);
});

test('the first packet anchors the clock until a sender report replaces the anchor', () => {
  const clock = new SenderClock(48_000);
  assert.equal(clock.wallTimeOf(1000), undefined);
  clock.packetArrived(1000, 5_000);
  clock.packetArrived(49_000, 6_000); // later packets that come in time or late do not move the anchor
  clock.packetArrived(97_000, 7_300);
  assert.equal(clock.wallTimeOf(49_000), 6_000);
  // One that comes sooner than the anchor predicts shows the first was held up: the anchor moves to it.
  clock.packetArrived(145_000, 7_900);
  assert.equal(clock.wallTimeOf(145_000), 7_900);
  assert.equal(clock.wallTimeOf(49_000), 5_900);
  assert.equal(clock.synchronised, false);
  // The sender says RTP 0xfffff000 was sent at 10 s: timestamps after the wrap map past it.
  clock.senderReport({ ssrc: 1, ntpTimestamp: unixMsToNtp(10_000), rtpTimestamp: 0xfffff000 });
  assert.equal(clock.synchronised, true);
  assert.ok(Math.abs(clock.wallTimeOf((0xfffff000 + 48_000) >>> 0)! - 11_000) < 0.01);
  assert.ok(Math.abs(clock.wallTimeOf(0xfffff000 - 24_000)! - 9_500) < 0.01);
});

test('a clock whose reports are not trusted goes back to its first packet for good', () => {
  const clock = new SenderClock(48_000);
  clock.packetArrived(0, 5_000);
  clock.senderReport({ ssrc: 1, ntpTimestamp: unixMsToNtp(3_000), rtpTimestamp: 0 });
  assert.equal(clock.wallTimeOf(48_000), 4_000);
  clock.distrustReports();
  assert.equal(clock.synchronised, false);
  assert.equal(clock.wallTimeOf(48_000), 6_000);
  clock.senderReport({ ssrc: 1, ntpTimestamp: unixMsToNtp(3_000), rtpTimestamp: 0 });
  assert.equal(clock.wallTimeOf(48_000), 6_000);
});

test('a sender clock is taken as behind ours only after every packet for 3 s arrived late by a steady amount', () => {
  const late = new LateSenderClock(400);
  // In time: never.
  for (let t = 0; t < 10_000; t += 20) assert.equal(late.observe(t, 60), false);
  // 1.5 s behind, steady within jitter: from 3 s on.
  const answers: number[] = [];
  for (let t = 10_000; t < 15_000; t += 20) if (late.observe(t, 1500 + ((t / 20) % 5) * 10)) answers.push(t);
  assert.equal(answers[0], 13_000);
  // A stall: a backlog delivered at once, lags spread over the stall, then back in time. Never.
  const stall = new LateSenderClock(400);
  for (let round = 0; round < 3; round++) {
    const at = 20_000 + round * 5000;
    for (let k = 0; k < 150; k++) assert.equal(stall.observe(at, 3000 - k * 20), false);
    for (let t = at + 20; t < at + 5000; t += 20) assert.equal(stall.observe(t, 60), false);
  }
  // One packet in time restarts the count.
  const mixed = new LateSenderClock(400);
  let fired = false;
  for (let t = 0; t < 10_000; t += 20) fired ||= mixed.observe(t, t % 2000 === 0 ? 50 : 900);
  assert.equal(fired, false);
});
