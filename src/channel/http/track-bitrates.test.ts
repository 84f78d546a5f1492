import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trackBitrates } from './track-bitrates.ts';

const t = (uid: number, kind: 'audio' | 'video', bytes: number) => ({ cname: 'c', uid, kind, codec: 'video/h264', packets: bytes / 100, bytes });

test('bit rate per track between two samples; null for a new track or one whose total went back', () => {
  const r = trackBitrates([t(1, 'video', 1000), t(2, 'audio', 5000)], [t(1, 'video', 126_000), t(2, 'audio', 100), t(3, 'video', 50)], 1000);
  assert.deepEqual(
    r.map((x) => [x.uid, x.kind, x.bitrateBps]),
    [
      [1, 'video', 1_000_000],
      [2, 'audio', null],
      [3, 'video', null],
    ],
  );
  assert.equal(trackBitrates([t(1, 'video', 0)], [t(1, 'video', 500)], 0)[0]!.bitrateBps, null);
});
