import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ntpToUnixMs, rtpTimestampDelta, SenderClock, unixMsToNtp } from './sender-clock.ts';

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
  clock.packetArrived(49_000, 6_000); // later packets do not move the anchor
  assert.equal(clock.wallTimeOf(49_000), 6_000);
  assert.equal(clock.synchronised, false);
  // The sender says RTP 0xfffff000 was sent at 10 s: timestamps after the wrap map past it.
  clock.senderReport({ ssrc: 1, ntpTimestamp: unixMsToNtp(10_000), rtpTimestamp: 0xfffff000 });
  assert.equal(clock.synchronised, true);
  assert.ok(Math.abs(clock.wallTimeOf((0xfffff000 + 48_000) >>> 0)! - 11_000) < 0.01);
  assert.ok(Math.abs(clock.wallTimeOf(0xfffff000 - 24_000)! - 9_500) < 0.01);
});
