import assert from 'node:assert/strict';
import { test } from 'node:test';
import { webMp4Name, webPlaylistName, webSliceName, webTuning } from './options.ts';

test('web file names: special characters of the cname become -, UTC stamp of the slice start, MP4 index from 0', () => {
  const n = { sid: 'sid1', cname: 'class.room#1' };
  assert.equal(webPlaylistName(n), 'sid1_class-room-1.m3u8');
  assert.equal(webSliceName(n, Date.UTC(2026, 10, 24, 12, 0, 1, 5)), 'sid1_class-room-1_20261124120001005.ts');
  assert.equal(webMp4Name(n, 0), 'sid1_class-room-1_0.mp4');
  assert.equal(webMp4Name({ ...n, backupIndex: 0 }, 2), 'bak0_sid1_class-room-1_2.mp4');
});

test('test tuning comes only from positive integers', () => {
  assert.deepEqual(webTuning({ webSliceSeconds: 3, webMp4SplitSeconds: 0 }), { sliceSeconds: 3 });
});
