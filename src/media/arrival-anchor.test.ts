import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ArrivalAnchor } from './arrival-anchor.ts';

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
