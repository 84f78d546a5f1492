import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RedFormatError, unwrapRed } from './red.ts';

/** A redundant block header: F=1, PT, 14-bit timestamp offset, 10-bit length (RFC 2198 §3). */
function header(pt: number, tsOffset: number, length: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE((((0x80 | pt) << 24) | (tsOffset << 10) | length) >>> 0);
  return Buffer.from(b);
}

test('RED: two redundant Opus blocks and the primary, oldest first', () => {
  const older = Buffer.from([0x78, 1, 2]);
  const old = Buffer.from([0x78, 3]);
  const primary = Buffer.from([0x78, 4, 5, 6]);
  const p = Buffer.concat([header(111, 1920, older.length), header(111, 960, old.length), Buffer.from([111]), older, old, primary]);
  const r = unwrapRed(p);
  assert.deepEqual(
    r.redundant.map((b) => [b.payloadType, b.tsOffset, [...b.payload]]),
    [
      [111, 1920, [...older]],
      [111, 960, [...old]],
    ],
  );
  assert.deepEqual([r.primary.payloadType, r.primary.tsOffset, [...r.primary.payload]], [111, 0, [...primary]]);
});

test('RED: a primary alone (distance 0), and malformed payloads name what is wrong', () => {
  assert.deepEqual([...unwrapRed(Buffer.from([111, 0x78, 9])).primary.payload], [0x78, 9]);
  assert.throws(() => unwrapRed(Buffer.alloc(0)), (e: unknown) => e instanceof RedFormatError && e.field === 'header');
  assert.throws(() => unwrapRed(Buffer.from([0x80 | 111, 0, 0])), (e: unknown) => e instanceof RedFormatError && e.field === 'header');
  const tooLong = Buffer.concat([header(111, 960, 50), Buffer.from([111]), Buffer.from([1, 2, 3])]);
  assert.throws(() => unwrapRed(tooLong), (e: unknown) => e instanceof RedFormatError && e.field === 'blockLength');
});
