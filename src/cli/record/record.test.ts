import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkUpdateMode, updateRequest, validateStartClientRequest } from '../../recording/validation/index.ts';
import { localStorageConfig, startClientRequest, updateClientRequest, type StartChoices } from './request.ts';
import { bucketUrl, bytes, elapsed, fileNames, statusLine } from './status-line.ts';

const choices: StartChoices = {
  mode: 'individual',
  token: '007abc',
  storageConfig: localStorageConfig('reeltime'),
  formats: ['hls'],
  profile: 'communication',
  layout: 1,
  width: 640,
  height: 360,
  url: 'http://127.0.0.1:9/page',
  maxIdleTime: 30,
};

test('the start body of every mode passes the server validation of that mode', () => {
  for (const mode of ['individual', 'mix', 'web'] as const) {
    const width = mode === 'web' ? 1280 : 640;
    const body = startClientRequest({ ...choices, mode, width, height: mode === 'web' ? 720 : 360, formats: mode === 'web' ? ['hls', 'mp4'] : ['hls'] });
    assert.doesNotThrow(() => validateStartClientRequest(body, mode, mode === 'web' ? 1 : 0), mode);
  }
});

test('status line, elapsed time, file names and bucket URLs', () => {
  assert.equal(elapsed(65_400), '01:05');
  assert.equal(elapsed(3_725_000), '1:02:05');
  assert.equal(
    statusLine({ cname: 'room', sid: 'ab', mode: 'mix', status: 5, files: 1, elapsedMs: 42_000 }),
    'recording (5)  00:42  1 file  mix "room" sid ab',
  );
  assert.equal(
    statusLine({ cname: 'room', sid: 'ab', mode: 'individual', status: 5, files: 2, elapsedMs: 42_000, uploaded: { files: 9, bytes: 3_140_000, pendingFiles: 1 } }),
    'recording (5)  00:42  2 files  9 uploaded, 3.1 MB (1 waiting)  individual "room" sid ab',
  );
  assert.deepEqual([bytes(999), bytes(12_345), bytes(123_456_789), bytes(2e12)], ['999 B', '12 kB', '123 MB', '2.0 TB']);
  assert.deepEqual(fileNames({ status: 5, fileListMode: 'string', fileList: 'a.m3u8', sliceStartTime: 0 }), ['a.m3u8']);
  assert.deepEqual(fileNames({ uploadingStatus: 'uploaded' }), []);
  assert.equal(bucketUrl('http://127.0.0.1:8080/', 'b', 'rec/x y.m3u8'), 'http://127.0.0.1:8080/bucket/b/rec/x%20y.m3u8');
});

test('update --onhold: recordingConfig.onhold in individual and mix, webRecordingConfig.onhold in web; each passes the server checks', () => {
  const none = { audio: undefined, video: undefined };
  assert.deepEqual(updateClientRequest('individual', { ...none, onhold: true }), { recordingConfig: { onhold: true } });
  assert.deepEqual(updateClientRequest('mix', { ...none, onhold: false }), { recordingConfig: { onhold: false } });
  assert.deepEqual(updateClientRequest('web', { ...none, onhold: true }), { webRecordingConfig: { onhold: true } });
  assert.deepEqual(updateClientRequest('mix', { audio: ['#allstream#'], video: ['7'], onhold: undefined }), {
    streamSubscribe: { audioUidList: { subscribeAudioUids: ['#allstream#'] }, videoUidList: { subscribeVideoUids: ['7'] } },
  });
  for (const mode of ['individual', 'mix', 'web'] as const) {
    const body = updateRequest({ cname: 'c', uid: '1', clientRequest: updateClientRequest(mode, { ...none, onhold: true }) }, '');
    assert.doesNotThrow(() => checkUpdateMode(body.clientRequest, mode, false), mode);
  }
});
