import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ivfFileHeader, ivfFrameHeader, RtpTimestampUnwrapper } from './ivf.ts';

test('IVF headers: the layout ffmpeg reads (fourcc, 90 kHz time base, 64-bit frame timestamps)', () => {
  const h = ivfFileHeader('H264');
  assert.equal(h.length, 32);
  assert.equal(h.toString('latin1', 0, 4), 'DKIF');
  assert.equal(h.toString('latin1', 8, 12), 'H264');
  assert.equal(h.readUInt32LE(16), 90_000);
  assert.equal(h.readUInt32LE(20), 1);
  const f = ivfFrameHeader(1234, 2 ** 33 + 5);
  assert.equal(f.readUInt32LE(0), 1234);
  assert.equal(f.readBigUInt64LE(4), BigInt(2 ** 33 + 5));
  assert.throws(() => ivfFileHeader('H26'), /4 characters/);
});

test('RTP timestamps unwrap across 2^32 and start at 0', () => {
  const u = new RtpTimestampUnwrapper();
  assert.equal(u.next(0xffff_f000), 0);
  assert.equal(u.next(0xffff_f000 + 3000), 3000);
  assert.equal(u.next(2000), 0x1000 + 2000);
  assert.equal(u.next(1000), 0x1000 + 1000, 'a step back stays a step back');
});
