import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRequest } from '../testing/client.ts';
import { editedStart, START_RULE_CASES, type Body } from '../testing/start-rule-cases.ts';
import { recorderUpdate } from '../dispatch/subscription.ts';
import {
  acquireRequest,
  checkSceneMode,
  checkUpdateMode,
  stopRequest,
  updateLayoutRequest,
  updateRequest,
  validateStartClientRequest,
  ValidationError,
  type RecordingMode,
  type Scene,
} from './index.ts';


function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof ValidationError) return e.message;
    throw e;
  }
}

const start = (mode: RecordingMode, edit: (b: Body) => void, scene: Scene = mode === 'web' ? 1 : 0) =>
  reasonOf(() => validateStartClientRequest(editedStart(mode, edit), mode, scene));

test('start clientRequest: every rule names the field path and the rule', () => {
  const wrong = START_RULE_CASES
    .map(([name, mode, edit, expected, scene]) => ({ name, expected, actual: start(mode, edit, scene) }))
    .filter((c) => c.actual !== c.expected);
  assert.deepEqual(wrong, []);
});

test('start clientRequest: a valid body comes back typed and without unknown fields', () => {
  const b = { ...startRequest('mix'), extra: 1 };
  const v = validateStartClientRequest(b, 'mix', 0);
  assert.equal(v.storageConfig.bucket, 'test-bucket');
  assert.equal((v as unknown as Record<string, unknown>).extra, undefined);
});

test('scene and mode agree', () => {
  assert.equal(reasonOf(() => checkSceneMode(0, 'mix')), undefined);
  assert.equal(reasonOf(() => checkSceneMode(2, 'mix')), 'mode: must be individual for a resource acquired with scene 2');
  assert.equal(reasonOf(() => checkSceneMode(1, 'web')), undefined);
});

test('acquire body: cname, uid and clientRequest rules', () => {
  const a = (b: unknown) => reasonOf(() => acquireRequest(b, ''));
  assert.equal(a({ cname: 'c', uid: '1' }), undefined);
  assert.equal(a({ uid: '1' }), 'cname: is required');
  assert.equal(a({ cname: '', uid: '1' }), 'cname: must not be empty');
  assert.equal(a({ cname: 'x'.repeat(1025), uid: '1' }), 'cname: must be at most 1024 bytes');
  assert.equal(a({ cname: 'x'.repeat(1024), uid: '1' }), undefined);
  assert.equal(a({ cname: 'a/b', uid: '1' }), 'cname: must use only a-z, A-Z, 0-9, space and !#$%&()+-:;<=.>?@[]^_{}|~,');
  assert.equal(a({ cname: 'c', uid: '0' }), 'uid: must be integer text between 1 and 4294967295');
  assert.equal(a({ cname: 'c', uid: '4294967295' }), undefined);
  assert.equal(a({ cname: 'c', uid: '4294967296' }), 'uid: must be integer text between 1 and 4294967295');
  assert.equal(a({ cname: 'c', uid: '01' }), 'uid: must be integer text between 1 and 4294967295');
  assert.equal(a({ cname: 'c', uid: 1 }), 'uid: must be a string');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { scene: 3 } }), 'clientRequest.scene: must be one of 0, 1, 2');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { resourceExpiredHour: 0 } }), undefined, 'Go clients send 0 for "not set"');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { resourceExpiredHour: 721 } }), 'clientRequest.resourceExpiredHour: must be between 1 and 720');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { region: 'US' } }), 'clientRequest.region: must be one of "CN", "AP", "EU", "NA"');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { excludeResourceIds: 'x' } }), 'clientRequest.excludeResourceIds: must be an array');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { startParameter: { anything: true } } }), undefined);
});

test('update, updateLayout and stop bodies', () => {
  const storageConfig = startRequest('mix').storageConfig;
  const u = (cr: unknown) => reasonOf(() => updateRequest({ cname: 'c', uid: '1', clientRequest: cr }, ''));
  assert.equal(u({ storageConfig }), undefined);
  assert.equal(u({}), undefined, 'storageConfig is optional on update');
  assert.equal(
    u({ storageConfig, streamSubscribe: { audioUidList: { subscribeAudioUids: ['1'], unsubscribeAudioUids: ['2'] } } }),
    'clientRequest.streamSubscribe.audioUidList.unsubscribeAudioUids: must not be set together with subscribeAudioUids',
  );
  assert.equal(
    u({ storageConfig, streamSubscribe: { videoUidList: { subscribeVideoUids: Array.from({ length: 33 }, (_, i) => `${i + 1}`) } } }),
    'clientRequest.streamSubscribe.videoUidList.subscribeVideoUids: must have at most 32 entries',
  );
  assert.equal(u({ storageConfig, webRecordingConfig: { onhold: 1 } }), 'clientRequest.webRecordingConfig.onhold: must be true or false');
  assert.equal(u({ storageConfig, rtmpPublishConfig: { outputs: [{ rtmpUrl: 'x' }] } }), 'clientRequest.rtmpPublishConfig.outputs[0].rtmpUrl: must be an rtmp or rtmps URL');

  const l = (cr: unknown) => reasonOf(() => updateLayoutRequest({ cname: 'c', uid: '1', clientRequest: cr }, ''));
  assert.equal(l({}), undefined);
  assert.equal(l({ backgroundColor: '#GGGGGG' }), 'clientRequest.backgroundColor: must be # followed by 6 hex digits');
  assert.equal(l({ mixedVideoLayout: 4 }), 'clientRequest.mixedVideoLayout: must be one of 0, 1, 2, 3, 100');
  assert.equal(l({ mixedVideoLayout: 100 }), undefined, 'reeltime\'s active-speaker layout');
  assert.equal(l({ maxResolutionUid: '0', mixedVideoLayout: 2 }), 'clientRequest.maxResolutionUid: must be integer text between 1 and 4294967295');

  const s = (b: unknown) => reasonOf(() => stopRequest(b, ''));
  assert.equal(s({ cname: 'c', uid: '1', clientRequest: {} }), undefined);
  assert.equal(s({ cname: 'c', uid: '1' }), 'clientRequest: is required');
  assert.equal(s({ cname: 'c', uid: '1', clientRequest: { async_stop: 'true' } }), 'clientRequest.async_stop: must be true or false');
});

test('recordingConfig.onhold (reeltime extension): boolean, at start and update, individual and mix modes only', () => {
  const start = (mode: RecordingMode, onhold: unknown) => {
    const cr = startRequest(mode === 'web' ? 'individual' : mode);
    const rc = { ...(cr.recordingConfig as Record<string, unknown>), onhold };
    return reasonOf(() => validateStartClientRequest({ ...cr, recordingConfig: rc }, mode, 0));
  };
  assert.equal(start('individual', true), undefined);
  assert.equal(start('individual', 'yes'), 'clientRequest.recordingConfig.onhold: must be true or false');
  assert.equal(start('mix', true), undefined);
  assert.equal(start('mix', 0), 'clientRequest.recordingConfig.onhold: must be true or false');
  assert.equal(start('web', true), 'clientRequest.recordingConfig: is only allowed in individual and mix modes, not web');

  const update = (mode: RecordingMode, onhold: unknown) =>
    reasonOf(() => checkUpdateMode(updateRequest({ cname: 'c', uid: '1', clientRequest: { recordingConfig: { onhold } } }, '').clientRequest, mode, false));
  assert.equal(update('individual', false), undefined);
  assert.equal(update('individual', 1), 'clientRequest.recordingConfig.onhold: must be true or false');
  assert.equal(update('mix', true), undefined);
  assert.equal(update('web', true), 'clientRequest.recordingConfig: is only allowed in individual and mix modes, not web');
});

test('recordingConfig.speakerTimeline (reeltime extension): boolean, at start, individual and mix modes only', () => {
  const start = (mode: RecordingMode, speakerTimeline: unknown) => {
    const cr = startRequest(mode === 'web' ? 'individual' : mode);
    const rc = { ...(cr.recordingConfig as Record<string, unknown>), speakerTimeline };
    return reasonOf(() => validateStartClientRequest({ ...cr, recordingConfig: rc }, mode, 0));
  };
  assert.equal(start('individual', true), undefined);
  assert.equal(start('mix', false), undefined);
  assert.equal(start('individual', 'true'), 'clientRequest.recordingConfig.speakerTimeline: must be true or false');
  assert.equal(start('mix', 1), 'clientRequest.recordingConfig.speakerTimeline: must be true or false');
  assert.equal(start('web', true), 'clientRequest.recordingConfig: is only allowed in individual and mix modes, not web');
  const cr = startRequest('mix');
  const videoOnly = { ...(cr.recordingConfig as Record<string, unknown>), streamTypes: 1, speakerTimeline: true };
  assert.equal(
    reasonOf(() => validateStartClientRequest({ ...cr, recordingConfig: videoOnly }, 'mix', 0)),
    'clientRequest.recordingConfig.speakerTimeline: needs the audio: streamTypes 0 or 2, not 1 (video only)',
  );
  // The transcription hook: a URL and a secret, with the timeline.
  const withHook = (transcription: unknown, speakerTimeline: unknown = true) =>
    reasonOf(() => validateStartClientRequest({ ...cr, recordingConfig: { ...(cr.recordingConfig as Record<string, unknown>), speakerTimeline, transcription } }, 'mix', 0));
  assert.equal(withHook({ url: 'https://stt.example.com/v1', secret: 's' }), undefined);
  assert.match(withHook({ url: 'ftp://stt.example.com/', secret: 's' }) ?? '', /^clientRequest\.recordingConfig\.transcription\.url: /);
  assert.match(withHook({ url: 'https://stt.example.com/' }) ?? '', /^clientRequest\.recordingConfig\.transcription\.secret: is required/);
  assert.match(withHook({ url: 'https://stt.example.com/', secret: '' }) ?? '', /^clientRequest\.recordingConfig\.transcription\.secret: /);
  assert.equal(withHook({ url: 'https://stt.example.com/', secret: 's' }, false), 'clientRequest.recordingConfig.transcription: needs speakerTimeline: true');
});

test('the recorder sees onhold in its update only when the request gave it', () => {
  assert.deepEqual(recorderUpdate({ recordingConfig: { onhold: true } }), { onhold: true });
  assert.deepEqual(recorderUpdate({ recordingConfig: { onhold: false } }), { onhold: false });
  assert.deepEqual(recorderUpdate({ recordingConfig: {} }), {});
  assert.deepEqual(recorderUpdate({}), {});
});
