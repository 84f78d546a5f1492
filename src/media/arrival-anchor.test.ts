import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArrivalAnchor, SendClock } from './arrival-anchor.ts';

const rtp = (ssrc: number, timestamp: number, pt = 96) => {
  const b = Buffer.alloc(12);
  b[0] = 0x80;
  b[1] = pt;
  b.writeUInt32BE(timestamp >>> 0, 4);
  b.writeUInt32BE(ssrc, 8);
  return b;
};

test('the anchor is the earliest arrival less media time, not the first packet’s arrival', () => {
  const a = new ArrivalAnchor(90_000);
  assert.equal(a.firstTimestampMs(), undefined);
  // The first packet came 120 ms late (a retransmission), the next ones on time.
  a.observe(rtp(1, 90_000), 10_120);
  a.observe(rtp(1, 90_000 + 6000), 10_067);
  a.observe(rtp(1, 90_000 + 12_000), 10_140);
  assert.equal(a.firstTimestampMs(), 10_000);
});

test('RTCP, another stream and packets after the first answer do not move it; timestamps wrap', () => {
  const a = new ArrivalAnchor(48_000);
  a.observe(rtp(7, 0xffff_ff00), 5_000);
  a.observe(rtp(7, 0xffff_ff00 + 960), 4_990); // wraps past 2^32: 20 ms later in media, arrived 10 ms earlier
  a.observe(rtp(7, 0, 200), 1_000); // a sender report (RFC 5761: 200 is RTCP)
  a.observe(rtp(8, 0xffff_ff00), 1_000); // another SSRC
  assert.equal(a.firstTimestampMs(), 4_970);
  a.observe(rtp(7, 0xffff_ff00 + 1920), 4_000);
  assert.equal(a.firstTimestampMs(), 4_970, 'fixed once read');
});

test('a packet reordered from before the first one votes with its own media time', () => {
  const a = new ArrivalAnchor(90_000);
  a.observe(rtp(1, 180_000), 2_000);
  a.observe(rtp(1, 174_000), 1_900); // 66.7 ms earlier in media, 100 ms earlier in arrival
  assert.equal(a.firstTimestampMs(), Math.round(1_900 + 66.667));
});

test('the anchor is for the first timestamp passed on: a later keyframe’s when the first frames were dropped', () => {
  const a = new ArrivalAnchor(90_000);
  a.observe(rtp(1, 0), 1_000);
  a.observe(rtp(1, 180_000), 3_000);
  a.origin(1, 180_000); // the repair dropped the first 2 s waiting for a keyframe
  a.origin(1, 0); // only the first call counts
  assert.equal(a.firstTimestampMs(), 3_000);
});

test('send clock: a packet held back by a stall is dated when it was sent, not when it came', () => {
  const c = new SendClock(48_000);
  // 20 ms Opus frames arriving on time, 10 ms after sending.
  for (let i = 0; i < 50; i++) assert.equal(c.sentAtMs(rtp(5, i * 960), 1_010 + i * 20), 1_010 + i * 20);
  // Then a 1.5 s stall: frames 50..124 all arrive at once, each is dated at its own sending.
  for (let i = 50; i < 125; i++) assert.equal(c.sentAtMs(rtp(5, i * 960), 3_510), 1_010 + i * 20);
  assert.equal(c.sentAtMs(rtp(5, 0, 200), 3_510), undefined, 'RTCP has no sending time here');
});

test('send clock: the floor is the earliest vote of the window, so it follows a sender clock slower than ours', () => {
  const c = new SendClock(90_000, 10_000);
  assert.equal(c.sentAtMs(rtp(1, 0), 1_000), 1_000);
  // 60 s later by our clock, 59.9 s by the sender's: the first vote has left the window.
  for (let s = 1; s <= 60; s++) c.sentAtMs(rtp(1, Math.round(s * 90_000 * (59.9 / 60))), 1_000 + s * 1000);
  const later = c.sentAtMs(rtp(1, 60 * 90_000 * (59.9 / 60) + 900), 61_010)!;
  assert.ok(Math.abs(later - 61_010) < 20, `dated ${later}, not 100 ms early`);
});

test('send clock: a new SSRC starts afresh; timestamps wrap', () => {
  const c = new SendClock(48_000);
  assert.equal(c.sentAtMs(rtp(1, 0xffff_ff00), 500), 500);
  assert.equal(c.sentAtMs(rtp(1, 0xffff_ff00 + 960), 520), 520);
  assert.equal(c.sentAtMs(rtp(2, 7), 9_000), 9_000, 'another stream: its own floor');
});
