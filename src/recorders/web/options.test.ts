import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StartClientRequest } from '../../recording/index.ts';
import { testRecordingTask } from '../../recording/testing/index.ts';
import { webMp4Name, webOptions, webPlaylistName, webSliceName, webTuning } from './options.ts';

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

test('web options: the session’s settings; the configured tuning overrides the slice length and the MP4 split', () => {
  const cr = {
    storageConfig: { vendor: 1, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' },
    extensionServiceConfig: {
      extensionServices: [
        { serviceName: 'web_recorder_service', serviceParam: { url: 'http://127.0.0.1:1/p', audioProfile: 1, videoWidth: 640, videoHeight: 360, maxRecordingHour: 2, maxVideoDuration: 30 } },
      ],
    },
  } as StartClientRequest;
  const t = testRecordingTask({ mode: 'web', scene: 1, clientRequest: cr });
  const o = webOptions(t);
  assert.deepEqual([o.url, o.width, o.height, o.audioProfile, o.mp4SplitSec, o.sliceSeconds, o.onhold], ['http://127.0.0.1:1/p', 640, 360, 1, 1800, undefined, false]);
  const tuned = webOptions(t, { sliceSeconds: 2, mp4SplitSec: 6 });
  assert.deepEqual([tuned.sliceSeconds, tuned.mp4SplitSec, tuned.url], [2, 6, 'http://127.0.0.1:1/p']);
  assert.throws(() => webOptions(testRecordingTask({ mode: 'mix', clientRequest: cr })), /settings\.mode: a mix session given to the web recorder/);
});
