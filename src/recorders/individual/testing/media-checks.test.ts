import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bucketKeys, filesUnder } from './media-checks.ts';

// A walk runs while uploads land: a `.part-…` file listed by readdir may be renamed before it is stat'ed. A
// dangling symlink is such an entry held still (listed, but stat finds nothing), so the race is tested without timing.
test('bucket walk: an entry gone between listing and stat is left out, not an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'media-checks-'));
  try {
    mkdirSync(join(dir, 'bucket', 'a'), { recursive: true });
    writeFileSync(join(dir, 'bucket', 'a', 'x.m3u8'), '#EXTM3U\n');
    writeFileSync(join(dir, 'bucket', 'a', 'y.ts'), 'ts');
    symlinkSync(join(dir, 'gone'), join(dir, 'bucket', 'a', 'x.m3u8.part-0123abcd'));
    assert.deepEqual(bucketKeys(join(dir, 'bucket')), ['a/x.m3u8', 'a/y.ts']);
    assert.deepEqual(filesUnder(join(dir, 'bucket'), () => true), [join(dir, 'bucket', 'a', 'x.m3u8'), join(dir, 'bucket', 'a', 'y.ts')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
