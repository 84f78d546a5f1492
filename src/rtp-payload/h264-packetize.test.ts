import assert from 'node:assert/strict';
import { test } from 'node:test';
import { H264AccessUnitAssembler } from './h264-access-unit.ts';
import { H264Reframer, h264Payloads, normalizedAccessUnit } from './h264-packetize.ts';
import { readRtpHeader } from './rtp-header.ts';
import { rtp } from './testing/rtp.ts';

const SPS = Buffer.from([0x67, 0x42, 0xc0, 0x1f]);
const PPS = Buffer.from([0x68, 0xce, 0x3c, 0x80]);
const AUD = Buffer.from([0x09, 0xf0]);
/** Two slices of one IDR picture (first_mb_in_slice 0, then not 0), and of one P picture. */
const IDR_TOP = Buffer.from([0x65, 0x88, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]);
const IDR_BOTTOM = Buffer.from([0x65, 0x21, 0x07, 0x08, 0x09]);
const P_TOP = Buffer.from([0x41, 0x9a, 0x0a]);
const P_BOTTOM = Buffer.from([0x41, 0x21, 0x0b]);

/** What ffmpeg's RTP muxer sends for a two-slice camera behind dump_extra: every slice its own frame, sets repeated. */
function slicedCamera(): Buffer[] {
  return [
    rtp(10, 0, false, AUD), rtp(11, 0, false, SPS), rtp(12, 0, false, PPS), rtp(13, 0, true, IDR_TOP),
    rtp(14, 0, false, SPS), rtp(15, 0, false, PPS), rtp(16, 0, true, IDR_BOTTOM),
    rtp(17, 6000, true, P_TOP), rtp(18, 6000, true, P_BOTTOM),
    rtp(19, 12000, true, P_TOP), rtp(20, 12000, true, P_BOTTOM),
  ];
}

test('normalized access unit: one SPS and one PPS first, no delimiters, slices in order', () => {
  assert.deepEqual(normalizedAccessUnit([AUD, SPS, PPS, IDR_TOP, SPS, PPS, IDR_BOTTOM]), [SPS, PPS, IDR_TOP, IDR_BOTTOM]);
  assert.deepEqual(normalizedAccessUnit([P_TOP, P_BOTTOM]), [P_TOP, P_BOTTOM]);
});

test('payloads: parameter sets in one STAP-A, small units alone, a large unit as FU-A fragments that rebuild it', () => {
  const big = Buffer.concat([Buffer.from([0x65]), Buffer.alloc(25, 7)]);
  const payloads = h264Payloads([SPS, PPS, big, P_TOP], 16);
  assert.equal(payloads[0]![0]! & 0x1f, 24);
  assert.ok(payloads.slice(1, -1).every((p) => (p[0]! & 0x1f) === 28 && p.length <= 16));
  assert.deepEqual(payloads.at(-1), P_TOP);
  const a = new H264AccessUnitAssembler();
  const units = payloads.flatMap((p, i) => a.push(rtp(i, 90, i === payloads.length - 1, p)));
  assert.deepEqual(units.map((u) => u.units), [[SPS, PPS, big, P_TOP]]);
});

test('reframer: a sliced camera goes out as one unit per picture, marker on its last packet, numbering continuous', () => {
  const r = new H264Reframer({ firstSequenceNumber: 65534 });
  const out = slicedCamera().flatMap((p) => r.push(p));
  const headers = out.map((p) => readRtpHeader(p)!);
  // The third picture is still held (a picture is known whole when the next one starts).
  assert.deepEqual(headers.map((h) => h.timestamp), [0, 0, 0, 6000, 6000]);
  assert.deepEqual(headers.map((h) => h.marker), [false, false, true, false, true]);
  assert.deepEqual(headers.map((h) => h.sequenceNumber), [65534, 65535, 0, 1, 2]);
  assert.ok(headers.every((h) => h.ssrc === 0xabcd && h.payloadType === 96));
  const a = new H264AccessUnitAssembler();
  const units = out.flatMap((p) => a.push(p));
  assert.deepEqual(units.map((u) => [u.key, u.units.length]), [[true, 4], [false, 2]]);
  assert.equal(r.skipped, 0);
});

test('reframer with trusted markers (whole access units from FLV or MPEG-TS): each picture goes out at its marker, not a frame later', () => {
  const r = new H264Reframer({ unitEndsAt: 'marker' });
  const whole = [rtp(1, 0, false, SPS), rtp(2, 0, false, PPS), rtp(3, 0, true, IDR_TOP), rtp(4, 6000, true, P_TOP)];
  assert.deepEqual(r.push(whole[0]!), []);
  assert.deepEqual(r.push(whole[1]!), []);
  const first = r.push(whole[2]!);
  assert.deepEqual(first.map((p) => readRtpHeader(p)!.timestamp), [0, 0], 'the IDR picture at its marker (parameter sets in a STAP-A, then the slice)');
  assert.deepEqual(r.push(whole[3]!).map((p) => [readRtpHeader(p)!.timestamp, readRtpHeader(p)!.marker]), [[6000, true]], 'the P picture at once');
});

test('reframer: a picture that lost a packet is not sent, nor any after it until the next keyframe', () => {
  const r = new H264Reframer();
  const camera = slicedCamera();
  const lost = camera.filter((p) => readRtpHeader(p)!.sequenceNumber !== 18); // the P picture's bottom slice
  const next = [rtp(21, 18000, true, P_TOP), rtp(22, 18000, true, P_BOTTOM), rtp(23, 24000, true, IDR_TOP), rtp(24, 24000, true, IDR_BOTTOM), rtp(25, 30000, true, P_TOP)];
  const out = [...lost, ...next].flatMap((p) => r.push(p)).map((p) => readRtpHeader(p)!.timestamp);
  assert.deepEqual([...new Set(out)], [0, 24000]);
  // 6000 (lost a slice; the gap may also have been 12000's), 12000 and 18000 (waiting for a keyframe).
  assert.equal(r.skipped, 3);
});
