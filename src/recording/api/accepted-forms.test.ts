/**
 * Request forms that the hosted service's docs, quick starts and open-source REST clients send, each through the
 * real HTTP server on loopback. docs/recording-api.md ("Accepted forms") lists the same cases with their sources.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer, waitUntil } from '../../testing/index.ts';
import { storage } from '../testing/client.ts';
import { rawRequest, recordingPaths, type RawRequest, type RawResponse } from '../testing/http-client.ts';
import { RecorderDouble } from '../testing/recorder-double.ts';

const doubles = { individual: new RecorderDouble('individual'), mix: new RecorderDouble('mix'), web: new RecorderDouble('web') };
const paths = recordingPaths();
let server: TestServer;
let nextUid = 100;

before(async () => {
  server = await startTestServer({
    recorders: Object.values(doubles),
    values: { recording: { rateLimitPerSecond: 0, maxConcurrentTasks: 100_000 } },
  });
});
after(async () => server.close());

const send = (path: string, r: RawRequest = {}): Promise<RawResponse> => rawRequest(server.url, path, r);

/** Storage as the docs' examples write it (Alibaba Cloud, region 3, a prefix). */
const docsStorage = () => ({
  vendor: 2,
  region: 3,
  bucket: 'docs-bucket',
  accessKey: 'docs-access-key',
  secretKey: 'docs-secret-key',
  fileNamePrefix: ['quickstart'],
});

type Mode = 'individual' | 'mix' | 'web';

interface Started {
  readonly rid: string;
  readonly sid: string;
  readonly id: { cname: string; uid: string };
  readonly mode: Mode;
}

/** acquire (scene by mode) then start with `clientRequest`; both must answer 200. */
async function started(mode: Mode, clientRequest: unknown, acquireClientRequest?: unknown): Promise<Started> {
  const id = { cname: `forms-${mode}`, uid: String(nextUid++) };
  const a = await send(paths.acquire, { body: { ...id, clientRequest: acquireClientRequest ?? { scene: mode === 'web' ? 1 : 0 } } });
  assert.equal(a.status, 200, a.text);
  const rid = a.body.resourceId as string;
  const s = await send(paths.start(rid, mode), { body: { ...id, clientRequest } });
  assert.equal(s.status, 200, s.text);
  return { rid, sid: s.body.sid as string, id, mode };
}

const mixRequest = () => ({
  storageConfig: storage(),
  recordingConfig: { channelType: 0, transcodingConfig: { width: 640, height: 360 } },
  recordingFileConfig: { avFileType: ['hls'] },
});

test('acquire: the bodies clients send', async () => {
  const id = () => ({ cname: 'acq', uid: String(nextUid++) });
  const accepted: [string, unknown][] = [
    ['Postman collection: clientRequest {}', { ...id(), clientRequest: {} }],
    ['clientRequest omitted', id()],
    ['web page docs: resourceExpiredHour 24, scene 1', { ...id(), clientRequest: { resourceExpiredHour: 24, scene: 1 } }],
    ['Go client zero values: scene 0, resourceExpiredHour 0', { ...id(), clientRequest: { scene: 0, resourceExpiredHour: 0 } }],
    ['Python/Node clients: regionAffinity (ignored)', { ...id(), clientRequest: { scene: 0, regionAffinity: 0, resourceExpiredHour: 24 } }],
    ['null optional fields (Java/Jackson)', { ...id(), clientRequest: { scene: null, resourceExpiredHour: null, startParameter: null } }],
  ];
  for (const [name, body] of accepted) {
    const r = await send(paths.acquire, { body });
    assert.equal(r.status, 200, `${name}: ${r.text}`);
    assert.match(r.body.resourceId as string, /^[A-Za-z0-9_-]{64}$/, name);
  }
  for (const [name, contentType] of [
    ['charset parameter', 'application/json;charset=utf-8'],
    ['upper-case charset', 'application/json; charset=UTF-8'],
    ['curl -d default', 'application/x-www-form-urlencoded'],
    ['no Content-Type', null],
  ] as const) {
    const r = await send(paths.acquire, { body: { ...id(), clientRequest: {} }, contentType });
    assert.equal(r.status, 200, `${name}: ${r.text}`);
  }
  const n = await send(paths.acquire, { body: { cname: 'acq', uid: 527841 } });
  assert.deepEqual([n.status, n.body], [400, { cname: 'acq', code: 2, reason: 'uid: must be a string' }], 'uid as a number is refused');
});

test('start individual: the docs examples (audio only, audio and video, screenshots, both)', async () => {
  const audioOnly = await started('individual', {
    recordingConfig: { channelType: 1, streamTypes: 0, maxIdleTime: 30, subscribeAudioUids: ['#allstream#'], subscribeUidGroup: 5 },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    storageConfig: docsStorage(),
  });
  const task = doubles.individual.session(audioOnly.sid).task;
  assert.equal(task.settings.mode, 'individual');
  if (task.settings.mode !== 'individual') return;
  assert.deepEqual(task.settings.subscription.lists.audio, { kind: 'everyone' }, 'the wildcard reaches the recorder as everyone');
  assert.deepEqual([task.settings.subscription.audio, task.settings.subscription.video, task.settings.profile], [true, false, 'live']);

  const allStreams = { channelType: 1, streamTypes: 2, videoStreamType: 0, maxIdleTime: 30, subscribeAudioUids: ['#allstream#'], subscribeVideoUids: ['#allstream#'], subscribeUidGroup: 5 };
  await started('individual', {
    recordingConfig: allStreams,
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    storageConfig: { ...docsStorage(), extensionParams: { tag: 'RETENTION_DAYS=30' } },
  });
  await started('individual', { recordingConfig: allStreams, snapshotConfig: { captureInterval: 5, fileType: ['jpg'] }, storageConfig: docsStorage() });
  await started('individual', {
    recordingConfig: allStreams,
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    snapshotConfig: { captureInterval: 5, fileType: ['jpg'] },
    storageConfig: docsStorage(),
  });
  // The blacklist as spelt in the subscription guide and older clients (unSubscribe…).
  const spelt = await started('individual', {
    recordingConfig: { channelType: 0, subscribeUidGroup: 0, subscribeAudioUids: ['#allstream#'], unSubscribeVideoUids: ['111', '222'] },
    storageConfig: storage(),
  });
  const speltSettings = doubles.individual.session(spelt.sid).task.settings;
  assert.deepEqual(speltSettings.mode === 'individual' && speltSettings.subscription.lists.video, { kind: 'except', uids: ['111', '222'] });
});

test('start individual without recordingConfig names the missing subscribeUidGroup', async () => {
  const id = { cname: 'forms-individual', uid: String(nextUid++) };
  const rid = (await send(paths.acquire, { body: { ...id, clientRequest: {} } })).body.resourceId as string;
  const r = await send(paths.start(rid, 'individual'), { body: { ...id, clientRequest: { storageConfig: storage() } } });
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'clientRequest.recordingConfig.subscribeUidGroup: is required in individual mode');
});

test('start mix: docs, Postman, Go and Python forms', async () => {
  await started('mix', {
    recordingConfig: {
      channelType: 1,
      streamTypes: 2,
      audioProfile: 2,
      videoStreamType: 0,
      maxIdleTime: 30,
      transcodingConfig: { width: 640, height: 360, fps: 15, bitrate: 500, mixedVideoLayout: 0, backgroundColor: '#000000' },
      subscribeVideoUids: ['#allstream#'],
      subscribeAudioUids: ['#allstream#'],
    },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    storageConfig: docsStorage(),
  });
  // Postman: token, maxResolutionUid with the adaptive layout (ignored outside vertical), no recordingFileConfig.
  const postman = await started('mix', {
    token: '007eJxTYxxxx',
    recordingConfig: {
      maxIdleTime: 120,
      streamTypes: 2,
      audioProfile: 1,
      channelType: 1,
      videoStreamType: 0,
      transcodingConfig: { width: 360, height: 640, fps: 24, bitrate: 800, mixedVideoLayout: 1, maxResolutionUid: '1' },
    },
    storageConfig: storage(),
  });
  const q = await send(paths.query(postman.rid, postman.sid, 'mix'), { method: 'GET' });
  assert.equal((q.body.serverResponse as { fileListMode: string }).fileListMode, 'string', 'no recordingFileConfig records HLS');
  // Go client: subscribeUidGroup always sent (0), uid lists, zero values omitted.
  await started('mix', {
    recordingConfig: {
      channelType: 1,
      streamTypes: 2,
      audioProfile: 2,
      maxIdleTime: 30,
      transcodingConfig: { width: 640, height: 260, fps: 15, bitrate: 500, backgroundColor: '#000000' },
      subscribeAudioUids: ['22', '456'],
      subscribeVideoUids: ['22', '456'],
      subscribeUidGroup: 0,
    },
    recordingFileConfig: { avFileType: ['hls'] },
    storageConfig: storage(),
  });
  // Go client: storageConfig.extensionParams always sent, `sse` "" when unset (and `tag` "" likewise), any vendor.
  for (const extensionParams of [{ sse: '' }, { sse: '', tag: '' }, { tag: '' }]) {
    const go = await started('mix', { ...mixRequest(), storageConfig: { ...docsStorage(), extensionParams } });
    assert.deepEqual(doubles.mix.session(go.sid).task.storage.extensionParams, {}, 'empty sse/tag are "not set"');
  }
  // Python client: no recordingConfig at all; the defaults apply.
  const py = await started('mix', { token: 't0k3n', storageConfig: storage(), recordingFileConfig: { avFileType: ['hls', 'mp4'] } });
  const pyTask = doubles.mix.session(py.sid).task;
  assert.equal(pyTask.token, 't0k3n');
  assert.equal(pyTask.settings.mode, 'mix');
  if (pyTask.settings.mode !== 'mix') return;
  const { profile, subscription, maxIdleMs, mp4 } = pyTask.settings;
  assert.deepEqual({ profile, subscription, maxIdleMs, mp4 }, { profile: 'communication', subscription: { audio: true, video: true, lists: {}, videoLayer: 'high' }, maxIdleMs: 30_000, mp4: true });
  // Unknown fields anywhere are ignored, never refused.
  await started('mix', {
    ...mixRequest(),
    recordingConfig: { channelType: 0, avOutputStreamType: 1, transcodingConfig: { width: 640, height: 360, futureOption: true } },
    someNewSection: { a: 1 },
  });
});

test('start web: the web page recording guide and the Go client', async () => {
  const page = { url: 'https://example.com/class', audioProfile: 0, videoWidth: 1280, videoHeight: 720, maxRecordingHour: 3 };
  await started('web', {
    token: '<token if any>',
    extensionServiceConfig: {
      errorHandlePolicy: 'error_abort',
      extensionServices: [{ serviceName: 'web_recorder_service', errorHandlePolicy: 'error_abort', serviceParam: page }],
    },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    storageConfig: docsStorage(),
  }, { resourceExpiredHour: 24, scene: 1 });
  await started('web', {
    extensionServiceConfig: {
      extensionServices: [
        { serviceName: 'web_recorder_service', errorHandlePolicy: 'error_abort', serviceParam: { ...page, maxVideoDuration: 200 } },
        { serviceName: 'rtmp_publish_service', errorHandlePolicy: 'error_ignore', serviceParam: { outputs: [{ rtmpUrl: 'rtmp://127.0.0.1/live/k' }] } },
      ],
    },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    storageConfig: docsStorage(),
  });
  // Go: errorHandlePolicy "" when unset, onhold/readyTimeout always sent, "VideoBitrate" spelt with a capital V.
  await started('web', {
    extensionServiceConfig: {
      extensionServices: [{ serviceName: 'web_recorder_service', errorHandlePolicy: '', serviceParam: { ...page, onhold: false, readyTimeout: 0, VideoBitrate: 2000 } }],
    },
    recordingFileConfig: { avFileType: ['hls'] },
    storageConfig: storage(),
  });
  // The REST reference's web example has no extensionServiceConfig: there is no page to record.
  const id = { cname: 'forms-web', uid: String(nextUid++) };
  const rid = (await send(paths.acquire, { body: { ...id, clientRequest: { scene: 1 } } })).body.resourceId as string;
  const r = await send(paths.start(rid, 'web'), { body: { ...id, clientRequest: { recordingFileConfig: { avFileType: ['hls', 'mp4'] }, storageConfig: docsStorage() } } });
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'clientRequest.extensionServiceConfig: is required in web mode');
});

test('query: GET with Content-Type and no body, or with a JSON null body (Java client)', async () => {
  const s = await started('mix', mixRequest());
  for (const [name, r] of [
    ['Postman/Node: Content-Type, no body', { method: 'GET' }],
    ['no Content-Type', { method: 'GET', contentType: null }],
    ['Java: body null', { method: 'GET', body: 'null' }],
    ['body {}', { method: 'GET', body: {} }],
  ] as const) {
    const q = await send(paths.query(s.rid, s.sid, 'mix'), r);
    assert.equal(q.status, 200, `${name}: ${q.text}`);
    assert.equal(q.body.sid, s.sid, name);
  }
  const ncs = await send('/v1/ncs/ip', { method: 'GET', body: 'null' });
  assert.equal(ncs.status, 200, ncs.text);
});

test('update: without storageConfig, with refreshed credentials, #allstream#, both list spellings', async () => {
  const mix = await started('mix', mixRequest());
  const up = (body: unknown) => send(paths.update(mix.rid, mix.sid, 'mix'), { body: { ...mix.id, clientRequest: body } });
  let r = await up({ streamSubscribe: { videoUidList: { subscribeVideoUids: ['#allstream#'] } } });
  assert.equal(r.status, 200, `Python client: ${r.text}`);
  r = await up({ streamSubscribe: { audioUidList: { subscribeAudioUids: ['999'] }, videoUidList: { subscribeVideoUids: ['999'] } } });
  assert.equal(r.status, 200, `Go client: ${r.text}`);
  r = await up({ streamSubscribe: { audioUidList: { unSubscribeAudioUids: ['5'] } } });
  assert.equal(r.status, 200, `docs spelling: ${r.text}`);
  r = await up({ storageConfig: { ...storage(), accessKey: 'AKIAROTATED', secretKey: 'rotated-secret', stsToken: 'sts-token-1', stsExpiration: 1_900_000_000 } });
  assert.equal(r.status, 200, `refreshed STS credentials: ${r.text}`);
  const updates = doubles.mix.session(mix.sid).updates;
  // The recorder gets the update in its own terms (dispatch/subscription.ts): `#allstream#` is resolved.
  assert.deepEqual(updates[0]?.lists, { video: { kind: 'everyone' } });
  assert.deepEqual(updates[2]?.lists, { audio: { kind: 'except', uids: ['5'] } });
  assert.equal(updates[3]?.storage?.stsToken, 'sts-token-1');

  r = await up({ streamSubscribe: { audioUidList: { subscribeAudioUids: ['#allstream#', '1'] } } });
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'clientRequest.streamSubscribe.audioUidList.subscribeAudioUids: "#allstream#" must be the only entry of the list');

  const web = await started('web', {
    extensionServiceConfig: {
      extensionServices: [{ serviceName: 'web_recorder_service', serviceParam: { url: 'https://example.com/', audioProfile: 0, videoWidth: 1280, videoHeight: 720, maxRecordingHour: 1 } }],
    },
    storageConfig: storage(),
  });
  r = await send(paths.update(web.rid, web.sid, 'web'), { body: { ...web.id, clientRequest: { webRecordingConfig: { onhold: true } } } });
  assert.equal(r.status, 200, `Python web client: ${r.text}`);
});

test('update: a storageConfig that moves the files elsewhere is refused naming the field, without echoing it', async () => {
  const s = await started('mix', mixRequest());
  for (const [field, changed] of [
    ['bucket', { ...storage(), bucket: 'other-bucket' }],
    ['fileNamePrefix', { ...storage(), fileNamePrefix: ['elsewhere'] }],
    ['region', { ...storage(), region: 1 }],
    ['extensionParams', { ...storage(), extensionParams: { tag: 'k=v' } }],
  ] as const) {
    const r = await send(paths.update(s.rid, s.sid, 'mix'), { body: { ...s.id, clientRequest: { storageConfig: changed } } });
    assert.equal(r.status, 400, field);
    assert.deepEqual(r.body, {
      ...s.id,
      resourceId: s.rid,
      sid: s.sid,
      code: 2,
      reason: `clientRequest.storageConfig.${field}: must equal the value given at start; only accessKey, secretKey, stsToken and stsExpiration may change`,
    });
    for (const secret of ['other-bucket', 'elsewhere', 'super-secret-key-value', 'AKIATESTKEY']) assert.ok(!r.text.includes(secret), `${field}: ${r.text}`);
  }
  const bad = await send(paths.update(s.rid, s.sid, 'mix'), { body: { ...s.id, clientRequest: { storageConfig: { ...storage(), bucket: '' } } } });
  assert.equal(bad.body.reason, 'clientRequest.storageConfig.bucket: must be a non-empty string', 'a sent storageConfig is validated');
});

test('updateLayout: Postman, Go and Python forms', async () => {
  const s = await started('mix', mixRequest());
  const layout = (clientRequest: unknown) => send(paths.updateLayout(s.rid, s.sid, 'mix'), { body: { ...s.id, clientRequest } });
  const entry = { x_axis: 0.1, y_axis: 0.1, width: 0.1, height: 0.1, alpha: 1.0, render_mode: 1 };
  let r = await layout({ mixedVideoLayout: 3, backgroundColor: '#FF0000', layoutConfig: [{ uid: '1', ...entry }, { uid: '2', ...entry, x_axis: 0.2, y_axis: 0.2 }] });
  assert.equal(r.status, 200, `Postman: ${r.text}`);
  r = await layout({ mixedVideoLayout: 3, layoutConfig: [{ uid: '', x_axis: 0, y_axis: 0, width: 0.5, height: 0.5, alpha: 0, render_mode: 0 }] });
  assert.equal(r.status, 200, `Go zero values: ${r.text}`);
  assert.equal(doubles.mix.session(s.sid).layouts[1]?.customRegions[0]?.uid, null, 'uid "" means "in join order"');
  assert.deepEqual(doubles.mix.session(s.sid).layouts[0]?.customRegions.map((c) => c.uid), ['1', '2']);
  r = await layout({ mixedVideoLayout: 1 });
  assert.equal(r.status, 200, `Python: ${r.text}`);
});

test('stop: clientRequest {} with a charset, async_stop true and false', async () => {
  const cases: [string, RawRequest['contentType'], unknown][] = [
    ['docs and Postman', 'application/json;charset=utf-8', {}],
    ['Go README', 'application/json', { async_stop: true }],
    ['Node/Python default', 'application/json', { async_stop: false }],
  ];
  for (const [name, contentType, clientRequest] of cases) {
    const s = await started('mix', mixRequest());
    await waitUntil(async () => ((await send(paths.query(s.rid, s.sid, 'mix'), { method: 'GET' })).body.serverResponse as { status?: number } | undefined)?.status === 5, { what: 'running' });
    const r = await send(paths.stop(s.rid, s.sid, 'mix'), { body: { ...s.id, clientRequest }, contentType });
    assert.equal(r.status, 200, `${name}: ${r.text}`);
    assert.equal(r.body.sid, s.sid, name);
  }
});
