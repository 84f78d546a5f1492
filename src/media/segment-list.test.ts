import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ClosedSliceReader } from './segment-list.ts';

test('closed slices count from the first slice, skip empty and too short tails and unknown files', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'slices-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'slice_00000.ts'), Buffer.alloc(188 * 10));
  writeFileSync(join(dir, 'slice_00001.ts'), Buffer.alloc(188 * 5));
  writeFileSync(join(dir, 'slice_00002.ts'), Buffer.alloc(0));
  const reader = new ClosedSliceReader(dir, 'ts', () => 1_000_000);
  assert.deepEqual(reader.read('slice_00000.ts,1.500000,16.500000'), {
    localPath: join(dir, 'slice_00000.ts'),
    startMs: 1_000_000,
    durationSec: 15,
    container: 'ts',
    bytes: 1880,
  });
  assert.equal(reader.read('slice_00001.ts,16.500000,17.900000')?.startMs, 1_015_000);
  assert.equal(reader.read('slice_00002.ts,17.900000,18.000000'), undefined, 'empty file');
  assert.equal(reader.read('slice_00001.ts,18.000000,18.010000'), undefined, 'too short');
  assert.equal(reader.read('missing.ts,18.0,20.0'), undefined);
  assert.equal(reader.read(''), undefined);
});
