import assert from 'node:assert/strict';
import { test } from 'node:test';
import { H264AccessUnitAssembler } from './h264-access-unit.ts';
import { stapA } from './h264.ts';
import { rtp as rtpPacket } from './testing/rtp.ts';

const rtp = (seq: number, timestamp: number, marker: boolean, payload: Buffer) => rtpPacket(seq, timestamp, marker, payload, { payloadType: 102, ssrc: 0x1234 });

const SPS = Buffer.from([0x67, 0x42, 0xc0, 0x1f]);
const PPS = Buffer.from([0x68, 0xce, 0x3c, 0x80]);
const IDR = Buffer.from([0x65, 0x88, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]);
const P = Buffer.from([0x41, 0x9a, 0x07, 0x08]);

/** FU-A fragments of one unit, `size` bytes of its body each. */
function fuA(unit: Buffer, size: number): Buffer[] {
  const body = unit.subarray(1);
  const out: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) {
    const start = i === 0 ? 0x80 : 0;
    const end = i + size >= body.length ? 0x40 : 0;
    out.push(Buffer.concat([Buffer.from([(unit[0]! & 0xe0) | 28, start | end | (unit[0]! & 0x1f)]), body.subarray(i, i + size)]));
  }
  return out;
}

const annexB = (...units: Buffer[]) => Buffer.concat(units.flatMap((u) => [Buffer.from([0, 0, 0, 1]), u]));
const au = (timestamp: number, key: boolean, ...units: Buffer[]) => ({ timestamp, annexB: annexB(...units), units, key });

test('access units: a STAP-A keyframe and FU-A fragments come out whole, in Annex B, with their RTP timestamp', () => {
  const a = new H264AccessUnitAssembler();
  const [f1, f2, f3] = fuA(IDR, 3);
  assert.deepEqual(a.push(rtp(1, 3000, false, stapA([SPS, PPS]))), []);
  assert.deepEqual(a.push(rtp(2, 3000, false, f1!)), []);
  assert.deepEqual(a.push(rtp(3, 3000, false, f2!)), []);
  assert.deepEqual(a.push(rtp(4, 3000, true, f3!)), [au(3000, true, SPS, PPS, IDR)]);
  assert.deepEqual(a.push(rtp(5, 9000, true, P)), [au(9000, false, P)]);
});

test('access units: a lost marker ends the unit at the next timestamp; a gap or a missing fragment drops the unit', () => {
  const a = new H264AccessUnitAssembler();
  assert.deepEqual(a.push(rtp(1, 0, false, P)), []);
  assert.deepEqual(a.push(rtp(2, 3000, true, P)), [
    au(0, false, P),
    au(3000, false, P),
  ]);
  // The middle fragment of a unit is missing: nothing of it comes out; the next unit does.
  const [f1, , f3] = fuA(IDR, 3);
  assert.deepEqual(a.push(rtp(3, 6000, false, f1!)), []);
  assert.deepEqual(a.push(rtp(5, 6000, true, f3!)), []);
  assert.deepEqual(a.push(rtp(6, 9000, true, P)), [au(9000, false, P)]);
  // A fragment that never ends, then a new timestamp.
  assert.deepEqual(a.push(rtp(7, 12000, false, f1!)), []);
  assert.deepEqual(a.push(rtp(8, 15000, true, P)), [au(15000, false, P)]);
});

test('access units: an IDR without its parameter sets gets the latest seen, or the SDP’s', () => {
  const fromSdp = new H264AccessUnitAssembler(`${SPS.toString('base64')},${PPS.toString('base64')}`);
  assert.deepEqual(fromSdp.push(rtp(1, 0, true, IDR)), [au(0, true, SPS, PPS, IDR)]);
  const inBand = new H264AccessUnitAssembler();
  inBand.push(rtp(1, 0, true, stapA([SPS, PPS, IDR])));
  assert.deepEqual(inBand.push(rtp(2, 180_000, true, IDR)), [au(180_000, true, SPS, PPS, IDR)]);
  assert.deepEqual(new H264AccessUnitAssembler().flush(), []);
});
