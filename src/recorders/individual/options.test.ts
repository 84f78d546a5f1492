import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StartClientRequest } from '../../recording/index.ts';
import { testRecordingTask } from '../../recording/testing/index.ts';
import { nextBackupIndex } from '../common/output/index.ts';
import { individualOptions } from './options.ts';

const storageConfig = { vendor: 1, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } as StartClientRequest['storageConfig'];
const task = (cr: Partial<StartClientRequest>, scene: 0 | 1 | 2 = 0) =>
  testRecordingTask({ mode: 'individual', scene, clientRequest: { storageConfig, ...cr } as StartClientRequest });

test('defaults: communication, audio+video for everybody, 30 s idle, HLS only, no snapshots', () => {
  const o = individualOptions(task({ recordingFileConfig: { avFileType: ['hls'] } }));
  assert.deepEqual(o.subscription, { audio: { kind: 'everyone' }, video: { kind: 'everyone' } });
  assert.equal(o.profile, 'communication');
  assert.equal(o.maxIdleMs, 30_000);
  assert.equal(o.hls, true);
  assert.equal(o.mp4, false);
  assert.equal(o.snapshotSec, undefined);
  assert.equal(o.streamMode, 'default');
  assert.deepEqual(o.postProcess, { kind: 'none' });
  assert.equal(o.backupIndex, undefined);
  assert.equal(o.onhold, false);
});

test('the session’s settings, with the live subscription and this run’s bak<n>_ index', () => {
  const t = task(
    {
      recordingConfig: { channelType: 1, maxIdleTime: 5, streamMode: 'original', subscribeAudioUids: ['7'], onhold: true },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
      snapshotConfig: { fileType: ['jpg'] },
      transcodeOptions: { transConfig: { transMode: 'postponeTranscoding' } },
    },
    2,
  );
  const o = individualOptions(t, 3);
  assert.deepEqual([o.profile, o.maxIdleMs, o.mp4, o.snapshotSec, o.streamMode, o.onhold, o.backupIndex], ['live', 5000, true, 10, 'original', true, 3]);
  assert.deepEqual(o.postProcess, { kind: 'postponeTranscoding' });
  // With a list for one kind only, the other kind is not subscribed.
  assert.deepEqual(o.subscription, { audio: { kind: 'only', uids: ['7'] }, video: { kind: 'only', uids: [] } });
  assert.ok(Object.isFrozen(o));
  const snapOnly = individualOptions(task({ snapshotConfig: { captureInterval: 5, fileType: ['jpg'] } }));
  assert.equal(snapOnly.hls, false);
  assert.equal(snapOnly.snapshotSec, 5);
});

test('another mode’s session is refused', () => {
  const mix = testRecordingTask({ mode: 'mix', clientRequest: { storageConfig } as StartClientRequest });
  assert.throws(() => individualOptions(mix), /settings\.mode: a mix session given to the individual recorder/);
});

test('a resumed task uses the next bak<n>_ index', () => {
  const f = (fileName: string) => ({ fileName, trackType: 'audio' as const, uid: '2', mixedAllUser: false, isPlayable: true, sliceStartTime: 0 });
  assert.equal(nextBackupIndex([]), 0);
  assert.equal(nextBackupIndex([f('p/s_c__uid_s_2__uid_e_audio.m3u8')]), 0);
  assert.equal(nextBackupIndex([f('p/bak0_s_c__uid_s_2__uid_e_audio.m3u8'), f('bak3_x.m3u8')]), 4);
});
