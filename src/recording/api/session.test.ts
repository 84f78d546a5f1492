import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { startTestServer, type TestServer, waitUntil } from '../../testing/index.ts';
import type { NotifyModule } from '../../notify/index.ts';
import { TaskStore } from '../store/index.ts';
import { mixLayoutSettings } from '../dispatch/index.ts';
import { recordingClient, startRequest, type RecordingClient } from '../testing/client.ts';
import { RecorderDouble, type DoubleOptions } from '../testing/recorder-double.ts';

const T0 = Date.UTC(2026, 0, 1, 12);
type Mode = 'individual' | 'mix' | 'web';

interface Ctx {
  server: TestServer;
  clock: ManualClock;
  api: RecordingClient;
  doubles: Record<Mode, RecorderDouble>;
}

async function withServer(fn: (c: Ctx) => Promise<void>, opts: DoubleOptions = {}, recording: Record<string, number> = {}) {
  const clock = new ManualClock(T0);
  const doubles = {
    individual: new RecorderDouble('individual', opts),
    mix: new RecorderDouble('mix', opts),
    web: new RecorderDouble('web', opts),
  };
  const server = await startTestServer({
    clock,
    recorders: Object.values(doubles),
    values: { recording: { rateLimitPerSecond: 0, ...recording } },
  });
  try {
    await fn({ server, clock, api: recordingClient(server.app), doubles });
  } finally {
    await server.close();
  }
}

async function begin(api: RecordingClient, mode: Mode, cr = startRequest(mode), acquireCr: Record<string, unknown> = {}) {
  const cname = `c-${mode}`;
  const uid = '4242';
  const rid = (await api.acquire({ cname, uid, clientRequest: { ...(mode === 'web' ? { scene: 1 } : {}), ...acquireCr } })).body
    .resourceId as string;
  const r = await api.start(rid, mode, { cname, uid, clientRequest: cr });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const sid = r.body.sid as string;
  const id = { cname, uid };
  const sr = async () => (await api.query(rid, sid, mode)).body.serverResponse as Record<string, unknown>;
  return { rid, sid, id, sr };
}

test('query outside a valid session answers 404 failed to find worker', async () => {
  await withServer(async ({ api }) => {
    const { rid, sid, id } = await begin(api, 'mix');
    const notFound = { code: 404, reason: 'failed to find worker' };
    const other = '0123456789abcdef0123456789abcdef';
    assert.deepEqual((await api.query(rid, other, 'mix')).body, { resourceId: rid, sid: other, ...notFound });
    const unknownRid = 'B'.repeat(64);
    assert.equal((await api.query(unknownRid, sid, 'mix')).status, 404);
    const fresh = (await api.acquire({ cname: 'x', uid: '1' })).body.resourceId as string;
    assert.equal((await api.query(fresh, sid, 'mix')).status, 404);
    assert.equal((await api.update(rid, sid, 'mix', { cname: id.cname, uid: '999', clientRequest: { storageConfig: startRequest('mix').storageConfig } })).status, 404);
    const wrongMode = await api.query(rid, sid, 'individual');
    assert.equal(wrongMode.status, 400);
    assert.equal(wrongMode.body.reason, 'mode: must be mix, the mode this session was started in');
  });
});

test('mix: fileListMode string for HLS alone, json with MP4; updateLayout replaces the layout', async () => {
  await withServer(async ({ api, doubles }) => {
    const hls = await begin(api, 'mix');
    await waitUntil(async () => (await hls.sr()).fileList !== '', { what: 'mix m3u8 reported' });
    const q = await hls.sr();
    assert.deepEqual(q, { status: 5, fileListMode: 'string', fileList: `${hls.sid}_c-mix.m3u8`, sliceStartTime: T0 });

    const layout = {
      mixedVideoLayout: 3 as const,
      backgroundColor: '#FF0000',
      layoutConfig: [{ uid: '1', x_axis: 0, y_axis: 0, width: 0.5, height: 0.5 }],
    };
    const r = await api.updateLayout(hls.rid, hls.sid, 'mix', { ...hls.id, clientRequest: layout });
    assert.deepEqual(r.body, { ...hls.id, resourceId: hls.rid, sid: hls.sid });
    // The recorder gets the layout translated once at the dispatch boundary, every omitted field at its default.
    assert.deepEqual(doubles.mix.session(hls.sid).layouts, [mixLayoutSettings(layout)]);
    assert.deepEqual(doubles.mix.session(hls.sid).layouts.map((l) => [l.kind, l.backgroundColor, l.customRegions[0]?.uid]), [[3, '#FF0000', '1']]);
    const bad = await api.updateLayout(hls.rid, hls.sid, 'mix', { ...hls.id, clientRequest: { mixedVideoLayout: 3 } });
    assert.equal(bad.body.reason, 'clientRequest.layoutConfig: is required with mixedVideoLayout 3');
    const stop = await api.stop(hls.rid, hls.sid, 'mix', { ...hls.id, clientRequest: {} });
    assert.deepEqual(stop.body.serverResponse, { fileListMode: 'string', fileList: `${hls.sid}_c-mix.m3u8`, uploadingStatus: 'uploaded' });

    const cr = { ...startRequest('mix'), recordingFileConfig: { avFileType: ['hls', 'mp4'] } };
    const mp4 = await begin(api, 'mix', cr);
    await waitUntil(async () => Array.isArray((await mp4.sr()).fileList) && ((await mp4.sr()).fileList as unknown[]).length === 2, { what: 'mp4 files' });
    assert.equal((await mp4.sr()).fileListMode, 'json');
  });
});

test('updateLayout is refused outside mix mode', async () => {
  await withServer(async ({ api }) => {
    const s = await begin(api, 'individual');
    const r = await api.updateLayout(s.rid, s.sid, 'individual', { ...s.id, clientRequest: {} });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { ...s.id, resourceId: s.rid, sid: s.sid, code: 2, reason: 'mode: updateLayout is only supported in mix mode' });
  });
});

test('individual with screenshots: query has status and sliceStartTime only, stop only uploadingStatus', async () => {
  await withServer(async ({ api }) => {
    const cr = {
      storageConfig: startRequest('individual').storageConfig,
      recordingConfig: { channelType: 0, subscribeUidGroup: 0, streamTypes: 1 },
      snapshotConfig: { captureInterval: 5, fileType: ['jpg'] },
    };
    const s = await begin(api, 'individual', cr);
    await waitUntil(async () => (await s.sr()).status === 5, { what: 'running' });
    assert.deepEqual(await s.sr(), { status: 5, sliceStartTime: T0 });
    const stop = await api.stop(s.rid, s.sid, 'individual', { ...s.id, clientRequest: {} });
    assert.deepEqual(stop.body.serverResponse, { uploadingStatus: 'uploaded' });
  });
});

test('web: query shows extensionServiceState, update toggles onhold, stop lists upload_service and web_recorder_service', async () => {
  await withServer(async ({ api, doubles }) => {
    const cr = startRequest('web') as { extensionServiceConfig: { extensionServices: unknown[] } };
    cr.extensionServiceConfig.extensionServices.push({
      serviceName: 'rtmp_publish_service',
      serviceParam: { outputs: [{ rtmpUrl: 'rtmp://127.0.0.1/live/key' }] },
    });
    const s = await begin(api, 'web', cr);
    await waitUntil(async () => (await s.sr()).status === 5, { what: 'running' });
    doubles.web.session(s.sid).report.rtmpStatus?.('rtmp://127.0.0.1/live/key', 'publishing');
    await waitUntil(async () => JSON.stringify(await s.sr()).includes('publishing'), { what: 'rtmp publishing' });
    const q = await s.sr();
    assert.deepEqual(q.extensionServiceState, [
      {
        serviceName: 'web_recorder_service',
        payload: { fileList: [{ filename: `${s.sid}_c-web.m3u8`, sliceStartTime: T0 / 1000 }, { filename: `${s.sid}_c-web_0.mp4`, sliceStartTime: T0 / 1000 }], onhold: false, state: 'inProgress' },
      },
      { serviceName: 'rtmp_publish_service', payload: { outputs: [{ rtmpUrl: 'rtmp://127.0.0.1/live/key', status: 'publishing' }], state: 'inProgress' } },
    ]);
    const storageConfig = startRequest('web').storageConfig;
    let r = await api.update(s.rid, s.sid, 'web', { ...s.id, clientRequest: { storageConfig, webRecordingConfig: { onhold: true } } });
    assert.equal(r.status, 200);
    assert.equal(doubles.web.session(s.sid).updates.length, 1);
    assert.equal(((await s.sr()).extensionServiceState as { payload: { onhold?: boolean } }[])[0]!.payload.onhold, true);
    r = await api.update(s.rid, s.sid, 'web', { ...s.id, clientRequest: { storageConfig, streamSubscribe: {} } });
    assert.equal(r.body.reason, 'clientRequest.streamSubscribe: is only allowed in individual and mix modes, not web');
    r = await api.update(s.rid, s.sid, 'web', { ...s.id, clientRequest: { webRecordingConfig: { onhold: false } } });
    assert.equal(r.status, 200, 'update without storageConfig');

    const stop = await api.stop(s.rid, s.sid, 'web', { ...s.id, clientRequest: { async_stop: false } });
    assert.equal(stop.status, 200);
    const ess = (stop.body.serverResponse as { extensionServiceState: Record<string, unknown>[] }).extensionServiceState;
    assert.equal(ess[0]!.serviceName, 'upload_service');
    assert.deepEqual(ess[0]!.payload, { uploadingStatus: 'uploaded' });
    assert.deepEqual(ess[0]!.playload, { uploadingStatus: 'uploaded' });
    assert.equal(ess[1]!.serviceName, 'web_recorder_service');
    assert.equal((ess[1]!.payload as { state: string }).state, 'exit');
  });
});

test('stop: a second stop while stopping is code 49; past the upload bound code 50; then the session ends', async () => {
  await withServer(async ({ api, doubles, clock, server }) => {
    const s = await begin(api, 'individual');
    doubles.individual.holdStops();
    const first = api.stop(s.rid, s.sid, 'individual', { ...s.id, clientRequest: {} });
    await waitUntil(() => doubles.individual.session(s.sid).stopCalls === 1, { what: 'recorder stop called' });
    const second = await api.stop(s.rid, s.sid, 'individual', { ...s.id, clientRequest: { async_stop: true } });
    assert.deepEqual(second.body, { ...s.id, resourceId: s.rid, sid: s.sid, code: 49, reason: 'invalid operation' });
    assert.equal(((await s.sr()).status as number), 6);
    clock.advance(20_000);
    const r = await first;
    assert.equal(r.status, 206);
    assert.equal(r.body.code, 50);
    assert.equal(r.body.reason, 'upload timeout');
    doubles.individual.releaseStops();
    await waitUntil(async () => (await api.query(s.rid, s.sid, 'individual')).status === 404, { what: 'session ended' });
    const events = await new TaskStore(server.context.database.db).events(s.sid);
    assert.deepEqual(
      events.map((e) => [e.eventType, e.details.msgName]),
      [
        [1, 'cloud_recording_error'],
        [11, 'session_exit'],
      ],
    );
    assert.equal((await api.stop(s.rid, s.sid, 'individual', { ...s.id, clientRequest: {} })).status, 404);
  });
});

test('a recorder stop that never finishes is given up after 15 minutes, freeing the cname+uid', async () => {
  await withServer(async ({ api, doubles, clock }) => {
    const s = await begin(api, 'mix');
    doubles.mix.holdStops();
    assert.equal((await api.stop(s.rid, s.sid, 'mix', { ...s.id, clientRequest: { async_stop: true } })).status, 200);
    await waitUntil(() => doubles.mix.session(s.sid).stopCalls === 1, { what: 'recorder stop called' });
    const again = async () => {
      const rid = (await api.acquire({ ...s.id, clientRequest: {} })).body.resourceId as string;
      return api.start(rid, 'mix', { ...s.id, clientRequest: startRequest('mix') });
    };
    assert.equal((await again()).body.code, 53);
    clock.advance(15 * 60 * 1000);
    await waitUntil(async () => (await again()).status === 200, { what: 'cname+uid free again' });
  });
});

test('stop: async_stop answers at once; nothing recorded answers 206 code 435', async () => {
  await withServer(
    async ({ api, doubles }) => {
      const s = await begin(api, 'mix');
      doubles.mix.holdStops();
      const r = await api.stop(s.rid, s.sid, 'mix', { ...s.id, clientRequest: { async_stop: true } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.serverResponse, { fileListMode: 'string', fileList: '', uploadingStatus: 'unknown' });
      doubles.mix.releaseStops();
      await waitUntil(async () => (await api.query(s.rid, s.sid, 'mix')).status === 404, { what: 'ended' });

      const t = await begin(api, 'individual');
      const empty = await api.stop(t.rid, t.sid, 'individual', { ...t.id, clientRequest: {} });
      assert.equal(empty.status, 206);
      assert.deepEqual(empty.body, { ...t.id, resourceId: t.rid, sid: t.sid, code: 435, reason: 'no recorded data' });
    },
    { recordNothing: true },
  );
});

test('a recorder leaving on its own (idle) ends the session: later calls get 404', async () => {
  await withServer(async ({ api, doubles, server }) => {
    const s = await begin(api, 'individual');
    doubles.individual.session(s.sid).report.event(41, 1, { msgName: 'recorder_leave', leaveCode: 4 });
    doubles.individual.session(s.sid).report.ended({ reason: 'idle', uploadingStatus: 'uploaded', recordedAnything: true });
    await waitUntil(async () => (await api.query(s.rid, s.sid, 'individual')).status === 404, { what: 'idle exit' });
    assert.equal((await api.stop(s.rid, s.sid, 'individual', { ...s.id, clientRequest: {} })).status, 404);
    const events = await new TaskStore(server.context.database.db).events(s.sid);
    assert.deepEqual(events.map((e) => e.eventType).sort(), [11, 41]);
    // Both went through the notify module (stored for delivery, with its per-session sequence).
    const notify = server.modules.find((m) => m.name === 'notify') as unknown as NotifyModule;
    await waitUntil(async () => (await notify.deliveries({ sid: s.sid })).length === 2, { what: 'notify stored both events' });
    const d = await notify.deliveries({ sid: s.sid });
    assert.deepEqual(d.map((x) => x.msgName).sort(), ['recorder_leave', 'session_exit']);
    assert.deepEqual(d.find((x) => x.eventType === 11)!.payload.details, { msgName: 'session_exit', exitStatus: 0 });
  });
});

test('resourceExpiredHour: past it the API answers 404 and the recorder is stopped', async () => {
  await withServer(async ({ api, doubles, clock }) => {
    const s = await begin(api, 'mix', startRequest('mix'), { resourceExpiredHour: 1 });
    clock.advance(3600 * 1000 - 1);
    assert.equal((await api.query(s.rid, s.sid, 'mix')).status, 200);
    clock.advance(1);
    assert.equal((await api.query(s.rid, s.sid, 'mix')).status, 404);
    await waitUntil(() => doubles.mix.session(s.sid).stopCalls === 1, { what: 'recorder stopped at expiry' });
    assert.equal((await api.stop(s.rid, s.sid, 'mix', { ...s.id, clientRequest: {} })).status, 404);
  });
});

test('web maxRecordingHour stops the recording by itself', async () => {
  await withServer(async ({ api, doubles, clock }) => {
    const s = await begin(api, 'web');
    clock.advance(2 * 3600 * 1000);
    await waitUntil(() => doubles.web.session(s.sid).stopCalls === 1, { what: 'stopped at maxRecordingHour' });
    await waitUntil(async () => (await api.query(s.rid, s.sid, 'web')).status === 404, { what: 'ended' });
  });
});

test('an unexpected recorder fault answers 500 internal_error without details', async () => {
  await withServer(
    async ({ api }) => {
      const s = await begin(api, 'mix');
      const r = await api.update(s.rid, s.sid, 'mix', { ...s.id, clientRequest: { storageConfig: startRequest('mix').storageConfig } });
      assert.equal(r.status, 500);
      assert.deepEqual(r.body, { code: 500, reason: 'internal_error' });
      // The session itself is untouched.
      assert.equal((await api.query(s.rid, s.sid, 'mix')).status, 200);
    },
    { failUpdate: true },
  );
});
