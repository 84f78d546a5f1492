import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRequest } from '../testing/client.ts';
import {
  acquireRequest,
  checkSceneMode,
  stopRequest,
  updateLayoutRequest,
  updateRequest,
  validateStartClientRequest,
  ValidationError,
  type RecordingMode,
  type Scene,
} from './index.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test fixtures are mutated freely

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (e instanceof ValidationError) return e.message;
    throw e;
  }
}

const start = (mode: RecordingMode, edit: (b: Body) => void, scene: Scene = mode === 'web' ? 1 : 0) => {
  const b = structuredClone(startRequest(mode)) as Body;
  edit(b);
  return reasonOf(() => validateStartClientRequest(b, mode, scene));
};

const RC = 'clientRequest.recordingConfig';
const TC = `${RC}.transcodingConfig`;
const SC = 'clientRequest.storageConfig';
const WP = 'clientRequest.extensionServiceConfig.extensionServices[0].serviceParam';

const cases: [string, RecordingMode, (b: Body) => void, string | undefined, Scene?][] = [
  ['valid individual', 'individual', () => {}, undefined],
  ['valid mix', 'mix', () => {}, undefined],
  ['valid web', 'web', () => {}, undefined],
  ['storageConfig required', 'mix', (b) => delete b.storageConfig, `${SC}: is required`],
  ['vendor type', 'mix', (b) => (b.storageConfig.vendor = '1'), `${SC}.vendor: must be an integer`],
  ['vendor retired', 'mix', (b) => (b.storageConfig.vendor = 4), `${SC}.vendor: 4 is not supported; use 1, 2, 3, 5, 6, 7, 8 or 11`],
  ['bucket empty', 'mix', (b) => (b.storageConfig.bucket = ''), `${SC}.bucket: must be a non-empty string`],
  ['prefix chars', 'mix', (b) => (b.storageConfig.fileNamePrefix = ['ok', 'no_underscore']), `${SC}.fileNamePrefix[1]: may contain only a-z, A-Z and 0-9 and must not be empty`],
  ['prefix length', 'mix', (b) => (b.storageConfig.fileNamePrefix = ['a'.repeat(64), 'b'.repeat(64)]), `${SC}.fileNamePrefix: joined with "/" must be at most 128 characters`],
  ['stsToken vendor', 'mix', (b) => Object.assign(b.storageConfig, { vendor: 5, region: 0, stsToken: 't' }), `${SC}.stsToken: is supported for vendors 1, 2 and 3 only, not 5`],
  ['recordingConfig required', 'mix', (b) => delete b.recordingConfig, `${RC}: is required in mix mode (channelType)`],
  ['channelType required', 'mix', (b) => delete b.recordingConfig.channelType, `${RC}.channelType: is required`],
  ['channelType enum', 'mix', (b) => (b.recordingConfig.channelType = 2), `${RC}.channelType: must be one of 0, 1`],
  ['maxIdleTime low', 'individual', (b) => (b.recordingConfig.maxIdleTime = 4), `${RC}.maxIdleTime: must be between 5 and 259200`],
  ['maxIdleTime high', 'individual', (b) => (b.recordingConfig.maxIdleTime = 259201), `${RC}.maxIdleTime: must be between 5 and 259200`],
  ['maxIdleTime max ok', 'individual', (b) => (b.recordingConfig.maxIdleTime = 259200), undefined],
  ['maxIdleTime float', 'individual', (b) => (b.recordingConfig.maxIdleTime = 5.5), `${RC}.maxIdleTime: must be an integer`],
  ['decryption secret', 'mix', (b) => (b.recordingConfig.decryptionMode = 1), `${RC}.secret: is required when decryptionMode is not 0`],
  ['secret without mode', 'mix', (b) => (b.recordingConfig.secret = 'k'), `${RC}.secret: must only be set when decryptionMode is not 0`],
  ['salt needed', 'mix', (b) => Object.assign(b.recordingConfig, { decryptionMode: 7, secret: 'k' }), `${RC}.salt: is required when decryptionMode is 7 or 8`],
  ['salt ok', 'mix', (b) => Object.assign(b.recordingConfig, { decryptionMode: 8, secret: 'k', salt: Buffer.alloc(32, 1).toString('base64') }), undefined],
  ['salt bad', 'mix', (b) => Object.assign(b.recordingConfig, { decryptionMode: 8, secret: 'k', salt: 'abc' }), `${RC}.salt: must be Base64 of 32 bytes`],
  ['salt wrong mode', 'mix', (b) => Object.assign(b.recordingConfig, { decryptionMode: 1, secret: 'k', salt: Buffer.alloc(32).toString('base64') }), `${RC}.salt: must only be set when decryptionMode is 7 or 8`],
  ['decryption enum', 'mix', (b) => (b.recordingConfig.decryptionMode = 9), `${RC}.decryptionMode: must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8`],
  ['audio lists exclusive', 'mix', (b) => Object.assign(b.recordingConfig, { subscribeAudioUids: ['1'], unsubscribeAudioUids: ['2'] }), `${RC}.unsubscribeAudioUids: must not be set together with subscribeAudioUids`],
  ['video lists exclusive', 'mix', (b) => Object.assign(b.recordingConfig, { subscribeVideoUids: ['1'], unsubscribeVideoUids: ['2'] }), `${RC}.unsubscribeVideoUids: must not be set together with subscribeVideoUids`],
  ['list max 32', 'mix', (b) => (b.recordingConfig.subscribeVideoUids = Array.from({ length: 33 }, (_, i) => String(i + 1))), `${RC}.subscribeVideoUids: must have at most 32 entries`],
  ['list uid 0', 'mix', (b) => (b.recordingConfig.subscribeAudioUids = ['0']), `${RC}.subscribeAudioUids[0]: must be integer text between 1 and 4294967295`],
  ['list uid too big', 'mix', (b) => (b.recordingConfig.subscribeAudioUids = ['4294967296']), `${RC}.subscribeAudioUids[0]: must be integer text between 1 and 4294967295`],
  ['list uid number', 'mix', (b) => (b.recordingConfig.subscribeAudioUids = [1]), `${RC}.subscribeAudioUids[0]: must be a string`],
  ['uid group required', 'individual', (b) => delete b.recordingConfig.subscribeUidGroup, `${RC}.subscribeUidGroup: is required in individual mode`],
  ['uid group too small', 'individual', (b) => (b.recordingConfig.subscribeVideoUids = ['1', '2', '3']), `${RC}.subscribeUidGroup: class 0 allows at most 2 UIDs, but the subscription lists name 3`],
  ['uid group enum', 'individual', (b) => (b.recordingConfig.subscribeUidGroup = 6), `${RC}.subscribeUidGroup: must be one of 0, 1, 2, 3, 4, 5`],
  ['uid group in mix ignored', 'mix', (b) => (b.recordingConfig.subscribeUidGroup = 1), undefined],
  ['streamMode only individual', 'mix', (b) => (b.recordingConfig.streamMode = 'standard'), `${RC}.streamMode: is only allowed in individual mode, not mix`],
  ['streamMode original needs audio', 'individual', (b) => (b.recordingConfig.streamMode = 'original'), `${RC}.streamMode: "original" requires streamTypes 0 (audio only)`],
  ['streamMode enum', 'individual', (b) => (b.recordingConfig.streamMode = 'fast'), `${RC}.streamMode: must be one of "default", "standard", "original"`],
  ['audioProfile only mix', 'individual', (b) => (b.recordingConfig.audioProfile = 1), `${RC}.audioProfile: is only allowed in mix mode, not individual`],
  ['transcodingConfig only mix', 'individual', (b) => (b.recordingConfig.transcodingConfig = {}), `${TC}: is only allowed in mix mode, not individual`],
  ['recordingConfig not in web', 'web', (b) => (b.recordingConfig = { channelType: 0 }), `${RC}: is only allowed in individual and mix modes, not web`],
  ['resolution', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { width: 1920, height: 1088 }), `${TC}.width: width x height must be at most 1920 x 1080`],
  ['resolution portrait ok', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { width: 1080, height: 1920 }), undefined],
  ['width max', 'mix', (b) => (b.recordingConfig.transcodingConfig.width = 1921), `${TC}.width: must be between 16 and 1920`],
  ['bitrate max', 'mix', (b) => (b.recordingConfig.transcodingConfig.bitrate = 6501), `${TC}.bitrate: must be between 1 and 6500`],
  ['color', 'mix', (b) => (b.recordingConfig.transcodingConfig.backgroundColor = '#12345'), `${TC}.backgroundColor: must be # followed by 6 hex digits`],
  ['color name', 'mix', (b) => (b.recordingConfig.transcodingConfig.backgroundColor = 'red'), `${TC}.backgroundColor: must be # followed by 6 hex digits`],
  ['bg image url', 'mix', (b) => (b.recordingConfig.transcodingConfig.backgroundImage = 'ftp://x/y.jpg'), `${TC}.backgroundImage: must be an http or https URL`],
  ['default bg url', 'mix', (b) => (b.recordingConfig.transcodingConfig.defaultUserBackgroundImage = 'not a url'), `${TC}.defaultUserBackgroundImage: must be an http or https URL`],
  ['layoutConfig needs custom', 'mix', (b) => (b.recordingConfig.transcodingConfig.layoutConfig = []), `${TC}.layoutConfig: is only allowed with mixedVideoLayout 3 (custom)`],
  ['custom needs layoutConfig', 'mix', (b) => (b.recordingConfig.transcodingConfig.mixedVideoLayout = 3), `${TC}.layoutConfig: is required with mixedVideoLayout 3`],
  ['17 windows', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 3, layoutConfig: Array.from({ length: 18 }, () => ({ x_axis: 0, y_axis: 0, width: 0.1, height: 0.1 })) }), `${TC}.layoutConfig: must have at most 17 entries`],
  ['layout range', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 1.5, height: 0.1 }] }), `${TC}.layoutConfig[0].width: must be between 0 and 1`],
  ['layout required', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 0.5 }] }), `${TC}.layoutConfig[0].height: is required`],
  ['layout overflow', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0.6, y_axis: 0, width: 0.5, height: 0.5 }] }), `${TC}.layoutConfig[0].width: x_axis + width must be at most 1`],
  ['alpha', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 0.5, height: 0.5, alpha: -0.1 }] }), `${TC}.layoutConfig[0].alpha: must be between 0 and 1`],
  ['render_mode', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 0.5, height: 0.5, render_mode: 2 }] }), `${TC}.layoutConfig[0].render_mode: must be one of 0, 1`],
  ['maxResolutionUid only vertical', 'mix', (b) => (b.recordingConfig.transcodingConfig.maxResolutionUid = '5'), `${TC}.maxResolutionUid: is only allowed with mixedVideoLayout 2 (vertical)`],
  ['maxResolutionUid ok', 'mix', (b) => Object.assign(b.recordingConfig.transcodingConfig, { mixedVideoLayout: 2, maxResolutionUid: '5' }), undefined],
  ['backgroundConfig url', 'mix', (b) => (b.recordingConfig.transcodingConfig.backgroundConfig = [{ uid: '1', image_url: 'x' }]), `${TC}.backgroundConfig[0].image_url: must be an http or https URL`],
  ['backgroundConfig uid', 'mix', (b) => (b.recordingConfig.transcodingConfig.backgroundConfig = [{ image_url: 'http://127.0.0.1/a.jpg' }]), `${TC}.backgroundConfig[0].uid: is required`],
  ['mp4 alone mix', 'mix', (b) => (b.recordingFileConfig.avFileType = ['mp4']), 'clientRequest.recordingFileConfig.avFileType: ["mp4"] alone is not allowed in mix mode; use ["hls","mp4"]'],
  ['mp4 alone web', 'web', (b) => (b.recordingFileConfig.avFileType = ['mp4']), 'clientRequest.recordingFileConfig.avFileType: ["mp4"] alone is not allowed in web mode; use ["hls","mp4"]'],
  ['mp4 alone individual', 'individual', (b) => (b.recordingFileConfig.avFileType = ['mp4']), undefined],
  ['avFileType enum', 'mix', (b) => (b.recordingFileConfig.avFileType = ['hls', 'webm']), 'clientRequest.recordingFileConfig.avFileType[1]: must be one of "hls", "mp4"'],
  ['avFileType repeat', 'mix', (b) => (b.recordingFileConfig.avFileType = ['hls', 'hls']), 'clientRequest.recordingFileConfig.avFileType[1]: must not repeat an earlier entry'],
  ['recordingFileConfig required', 'mix', (b) => delete b.recordingFileConfig, 'clientRequest.recordingFileConfig: is required unless recording screenshots only (snapshotConfig)'],
  ['snapshot only individual', 'mix', (b) => (b.snapshotConfig = { fileType: ['jpg'] }), 'clientRequest.snapshotConfig: is only allowed in individual mode, not mix'],
  ['snapshot-only ok', 'individual', (b) => { delete b.recordingFileConfig; b.snapshotConfig = { fileType: ['jpg'] }; }, undefined],
  ['snapshot fileType', 'individual', (b) => (b.snapshotConfig = { fileType: ['png'] }), 'clientRequest.snapshotConfig.fileType[0]: must be one of "jpg"'],
  ['snapshot fileType required', 'individual', (b) => (b.snapshotConfig = {}), 'clientRequest.snapshotConfig.fileType: is required'],
  ['snapshot interval', 'individual', (b) => (b.snapshotConfig = { fileType: ['jpg'], captureInterval: 3601 }), 'clientRequest.snapshotConfig.captureInterval: must be between 5 and 3600'],
  ['snapshot audio only', 'individual', (b) => { b.snapshotConfig = { fileType: ['jpg'] }; b.recordingConfig.streamTypes = 0; }, `${RC}.streamTypes: must be 1 or 2 when snapshotConfig is set`],
  ['snapshot audio uids need video uids', 'individual', (b) => { b.snapshotConfig = { fileType: ['jpg'] }; b.recordingConfig.subscribeAudioUids = ['1']; }, `${RC}.subscribeVideoUids: is required with subscribeAudioUids when snapshotConfig is set`],
  ['extension only web', 'mix', (b) => (b.extensionServiceConfig = startRequest('web').extensionServiceConfig), 'clientRequest.extensionServiceConfig: is only allowed in web mode, not mix'],
  ['extension required web', 'web', (b) => delete b.extensionServiceConfig, 'clientRequest.extensionServiceConfig: is required in web mode'],
  ['web url', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceParam.url = 'javascript:alert(1)'), `${WP}.url: must be an http or https URL`],
  ['web audioProfile', 'web', (b) => delete b.extensionServiceConfig.extensionServices[0].serviceParam.audioProfile, `${WP}.audioProfile: is required`],
  ['web resolution', 'web', (b) => Object.assign(b.extensionServiceConfig.extensionServices[0].serviceParam, { videoWidth: 1920, videoHeight: 1920 }), `${WP}.videoHeight: videoWidth x videoHeight must be at most 1920 x 1080`],
  ['web hours', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceParam.maxRecordingHour = 721), `${WP}.maxRecordingHour: must be between 1 and 720`],
  ['web fps', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceParam.videoFps = 61), `${WP}.videoFps: must be between 5 and 60`],
  ['web slice', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceParam.maxVideoDuration = 29), `${WP}.maxVideoDuration: must be between 30 and 240`],
  ['web readyTimeout', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceParam.readyTimeout = 61), `${WP}.readyTimeout: must be between 0 and 60`],
  ['web mobile type', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceParam.mobile = 'yes'), `${WP}.mobile: must be true or false`],
  ['web policy', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].errorHandlePolicy = 'error_ignore'), 'clientRequest.extensionServiceConfig.extensionServices[0].errorHandlePolicy: must be "error_abort" for web_recorder_service'],
  ['top policy', 'web', (b) => (b.extensionServiceConfig.errorHandlePolicy = 'error_ignore'), 'clientRequest.extensionServiceConfig.errorHandlePolicy: must be one of "error_abort"'],
  ['service name', 'web', (b) => (b.extensionServiceConfig.extensionServices[0].serviceName = 'x'), 'clientRequest.extensionServiceConfig.extensionServices[0].serviceName: must be one of "web_recorder_service", "rtmp_publish_service"'],
  ['rtmp only', 'web', (b) => (b.extensionServiceConfig.extensionServices = [{ serviceName: 'rtmp_publish_service', serviceParam: { outputs: [{ rtmpUrl: 'rtmp://127.0.0.1/a' }] } }]), 'clientRequest.extensionServiceConfig.extensionServices: must include web_recorder_service'],
  ['rtmp url', 'web', (b) => b.extensionServiceConfig.extensionServices.push({ serviceName: 'rtmp_publish_service', serviceParam: { outputs: [{ rtmpUrl: 'http://127.0.0.1/a' }] } }), 'clientRequest.extensionServiceConfig.extensionServices[1].serviceParam.outputs[0].rtmpUrl: must be an rtmp or rtmps URL'],
  ['rtmp policy', 'web', (b) => b.extensionServiceConfig.extensionServices.push({ serviceName: 'rtmp_publish_service', errorHandlePolicy: 'error_abort', serviceParam: { outputs: [{ rtmpUrl: 'rtmp://127.0.0.1/a' }] } }), 'clientRequest.extensionServiceConfig.extensionServices[1].errorHandlePolicy: must be "error_ignore" for rtmp_publish_service'],
  ['scene 2 needs appsCollection', 'individual', () => {}, 'clientRequest.appsCollection: is required with scene 2', 2],
  ['scene 2 policy', 'individual', (b) => (b.appsCollection = { combinationPolicy: 'default' }), 'clientRequest.appsCollection.combinationPolicy: must be "postpone_transcoding" with scene 2', 2],
  ['scene 2 ok', 'individual', (b) => { b.appsCollection = { combinationPolicy: 'postpone_transcoding' }; b.transcodeOptions = { transConfig: { transMode: 'audioMix' }, container: { format: 'mp3' }, audio: { channels: '1' } }; }, undefined, 2],
  ['appsCollection needs scene 2', 'individual', (b) => (b.appsCollection = { combinationPolicy: 'postpone_transcoding' }), 'clientRequest.appsCollection: is only allowed with scene 2'],
  ['appsCollection not mix', 'mix', (b) => (b.appsCollection = {}), 'clientRequest.appsCollection: is only allowed in individual mode, not mix'],
  ['transcodeOptions needs scene 2', 'individual', (b) => (b.transcodeOptions = { transConfig: { transMode: 'audioMix' } }), 'clientRequest.transcodeOptions: is only allowed with scene 2'],
  ['transMode required', 'individual', (b) => { b.appsCollection = { combinationPolicy: 'postpone_transcoding' }; b.transcodeOptions = { transConfig: {} }; }, 'clientRequest.transcodeOptions.transConfig.transMode: is required', 2],
  ['postponed mp4 only', 'individual', (b) => { b.appsCollection = { combinationPolicy: 'postpone_transcoding' }; b.transcodeOptions = { transConfig: { transMode: 'postponeTranscoding' }, container: { format: 'mp3' } }; }, 'clientRequest.transcodeOptions.container.format: must be "mp4" with transMode postponeTranscoding', 2],
  ['audio only with audioMix', 'individual', (b) => { b.appsCollection = { combinationPolicy: 'postpone_transcoding' }; b.transcodeOptions = { transConfig: { transMode: 'postponeTranscoding' }, audio: {} }; }, 'clientRequest.transcodeOptions.audio: is only allowed with transMode audioMix', 2],
  ['sampleRate enum', 'individual', (b) => { b.appsCollection = { combinationPolicy: 'postpone_transcoding' }; b.transcodeOptions = { transConfig: { transMode: 'audioMix' }, audio: { sampleRate: '44100' } }; }, 'clientRequest.transcodeOptions.audio.sampleRate: must be one of "48000", "32000", "16000"', 2],
  ['token type', 'mix', (b) => (b.token = 5), 'clientRequest.token: must be a string'],
  ['null optional is absent', 'mix', (b) => (b.snapshotConfig = null), undefined],
  ['not an object', 'mix', (b) => (b.recordingConfig = []), `${RC}: must be a JSON object`],
];

test('start clientRequest: every rule names the field path and the rule', () => {
  const wrong = cases
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
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { resourceExpiredHour: 0 } }), 'clientRequest.resourceExpiredHour: must be between 1 and 720');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { resourceExpiredHour: 721 } }), 'clientRequest.resourceExpiredHour: must be between 1 and 720');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { region: 'US' } }), 'clientRequest.region: must be one of "CN", "AP", "EU", "NA"');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { excludeResourceIds: 'x' } }), 'clientRequest.excludeResourceIds: must be an array');
  assert.equal(a({ cname: 'c', uid: '1', clientRequest: { startParameter: { anything: true } } }), undefined);
});

test('update, updateLayout and stop bodies', () => {
  const storageConfig = startRequest('mix').storageConfig;
  const u = (cr: unknown) => reasonOf(() => updateRequest({ cname: 'c', uid: '1', clientRequest: cr }, ''));
  assert.equal(u({ storageConfig }), undefined);
  assert.equal(u({}), 'clientRequest.storageConfig: is required');
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
  assert.equal(l({ mixedVideoLayout: 4 }), 'clientRequest.mixedVideoLayout: must be one of 0, 1, 2, 3');
  assert.equal(l({ maxResolutionUid: '0', mixedVideoLayout: 2 }), 'clientRequest.maxResolutionUid: must be integer text between 1 and 4294967295');

  const s = (b: unknown) => reasonOf(() => stopRequest(b, ''));
  assert.equal(s({ cname: 'c', uid: '1', clientRequest: {} }), undefined);
  assert.equal(s({ cname: 'c', uid: '1' }), 'clientRequest: is required');
  assert.equal(s({ cname: 'c', uid: '1', clientRequest: { async_stop: 'true' } }), 'clientRequest.async_stop: must be true or false');
});
