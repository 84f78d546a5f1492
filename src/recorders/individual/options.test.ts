import assert from 'node:assert/strict';
import { test } from 'node:test';
import { subscriptionRequest, type RecordingTask } from '../../recording/dispatch/index.ts';
import { nextBackupIndex } from '../common/output/index.ts';
import { individualOptions } from './options.ts';

const storageConfig = { vendor: 1, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } as RecordingTask['clientRequest']['storageConfig'];
const task = (clientRequest: Partial<RecordingTask['clientRequest']>, extra: Partial<RecordingTask> = {}): RecordingTask => ({
  appId: 'a',
  cname: 'c',
  uid: '1',
  sid: 's',
  resourceId: 'r',
  mode: 'individual',
  scene: 0,
  clientRequest: { storageConfig, ...clientRequest },
  subscription: subscriptionRequest(clientRequest.recordingConfig),
  startedAt: 0,
  resumed: false,
  previousFiles: [],
  ...extra,
});

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
});

test('live, mp4, snapshots, snapshot-only, scene 2', () => {
  const o = individualOptions(
    task({ recordingConfig: { channelType: 1, maxIdleTime: 5, streamMode: 'original' }, recordingFileConfig: { avFileType: ['hls', 'mp4'] }, snapshotConfig: { fileType: ['jpg'] } }),
  );
  assert.equal(o.profile, 'live');
  assert.equal(o.maxIdleMs, 5000);
  assert.equal(o.mp4, true);
  assert.equal(o.snapshotSec, 10);
  assert.equal(o.streamMode, 'original');
  const snapOnly = individualOptions(task({ snapshotConfig: { captureInterval: 5, fileType: ['jpg'] } }));
  assert.equal(snapOnly.hls, false);
  assert.equal(snapOnly.snapshotSec, 5);
  const mix = individualOptions(
    task({ transcodeOptions: { transConfig: { transMode: 'audioMix' }, container: { format: 'm4a' }, audio: { sampleRate: '16000', channels: '1', bitrate: '32000' } } }, { scene: 2 }),
  );
  assert.deepEqual(mix.postProcess, { kind: 'audioMix', format: 'm4a', sampleRate: 16000, bitrate: 32000, channels: 1 });
  const defMix = individualOptions(task({ transcodeOptions: { transConfig: { transMode: 'audioMix' } } }, { scene: 2 }));
  assert.deepEqual(defMix.postProcess, { kind: 'audioMix', format: 'mp3', sampleRate: 48000, bitrate: 48000, channels: 2 });
  const pt = individualOptions(task({ transcodeOptions: { transConfig: { transMode: 'postponeTranscoding' } } }, { scene: 2 }));
  assert.deepEqual(pt.postProcess, { kind: 'postponeTranscoding' });
  assert.deepEqual(individualOptions(task({ transcodeOptions: { transConfig: { transMode: 'postponeTranscoding' } } })).postProcess, { kind: 'none' }, 'scene 0 ignores transcodeOptions');
});

test('a resumed task uses the next bak<n>_ index', () => {
  const f = (fileName: string) => ({ fileName, trackType: 'audio' as const, uid: '2', mixedAllUser: false, isPlayable: true, sliceStartTime: 0 });
  assert.equal(nextBackupIndex([]), 0);
  assert.equal(nextBackupIndex([f('p/s_c__uid_s_2__uid_e_audio.m3u8')]), 0);
  assert.equal(nextBackupIndex([f('p/bak0_s_c__uid_s_2__uid_e_audio.m3u8'), f('bak3_x.m3u8')]), 4);
});
