/**
 * WebSession's decisions on the injected clock, with a scripted capture (no browser): renderer crashes, the
 * readyTimeout reload, onhold before and after the page is ready, CDN statuses, and maxRecordingHour's code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { createLogger } from '../../log/index.ts';
import type { CaptureEventListener, CaptureHandle, CaptureOptions } from '../../media/capture/index.ts';
import type { OutboundPolicy } from '../../net/index.ts';
import type { RecorderOutcome, RecorderReport, RecordingTask, RtmpStatus } from '../../recording/dispatch/index.ts';
import type { StartClientRequest } from '../../recording/index.ts';
import { testRecordingTask } from '../../recording/testing/index.ts';
import type { UploadSession } from '../../storage/index.ts';
import { webOptions } from './options.ts';
import { WebSession } from './session.ts';

class ScriptedCapture {
  readonly calls: string[] = [];
  emit: CaptureEventListener = () => undefined;
  handle(): CaptureHandle {
    const call = (name: string) => {
      this.calls.push(name);
      return Promise.resolve();
    };
    return {
      display: ':99',
      onhold: false,
      privateDir: '/nonexistent',
      rtmpUrl: undefined,
      children: () => [],
      pids: () => [],
      load: async () => (this.calls.push('load'), { status: 200 }),
      reload: async () => (this.calls.push('reload'), { status: 200 }),
      pause: () => call('pause'),
      resume: () => call('resume'),
      setPushUrl: () => call('setPushUrl'),
      crashRenderer: () => undefined,
      stop: () => call('stop'),
    };
  }
}

const upload: UploadSession = {
  sid: 'sid',
  objectKey: (n: string) => n,
  enqueue: async (_p: string, key: string) => ({ ok: true, key, bytes: 1 }),
  updateStorage: async () => undefined,
  status: async () => ({ uploadingStatus: 'uploaded', pending: 0, uploaded: 0, pendingBytes: 0, progress: 0 }),
  onEvent: () => () => undefined,
  finish: async () => ({ uploadingStatus: 'uploaded', files: [] }),
} as unknown as UploadSession;

function task(param: Record<string, unknown>, startedAt: number, rtmpUrl?: string): RecordingTask {
  const services: Record<string, unknown>[] = [
    { serviceName: 'web_recorder_service', serviceParam: { url: 'http://127.0.0.1:1/p', audioProfile: 0, videoWidth: 640, videoHeight: 360, maxRecordingHour: 2, ...param } },
  ];
  if (rtmpUrl) services.push({ serviceName: 'rtmp_publish_service', serviceParam: { outputs: [{ rtmpUrl }] } });
  const clientRequest = { storageConfig: {}, extensionServiceConfig: { extensionServices: services } } as unknown as StartClientRequest;
  return testRecordingTask({ mode: 'web', scene: 1, clientRequest }, { sid: 'sid', startedAt });
}

function setup(param: Record<string, unknown>, rtmpUrl?: string, pageUrlPolicy?: OutboundPolicy, pageHosts?: readonly string[]) {
  const clock = new ManualClock();
  const capture = new ScriptedCapture();
  const events: { type: number; details: Record<string, unknown> }[] = [];
  const rtmp: [string, RtmpStatus][] = [];
  const ended: RecorderOutcome[] = [];
  const report: RecorderReport = {
    status: () => undefined,
    files: () => undefined,
    sliceStartTime: () => undefined,
    rtmpStatus: (u, s) => void rtmp.push([u, s]),
    event: (type, _s, details) => void events.push({ type, details }),
    ended: (o) => void ended.push(o),
  };
  const workDir = mkdtempSync(join(tmpdir(), 'web-session-'));
  const t = task(param, clock.now(), rtmpUrl);
  const started: CaptureOptions[] = [];
  const session = new WebSession({
    task: t, options: webOptions(t), report, upload, clock, log: createLogger('silent'), workDir, naming: { sid: 'sid', cname: 'c' },
    pageUrlPolicy,
    pageHosts,
    startCapture: async (o, onEvent) => {
      started.push(o);
      capture.emit = onEvent;
      return capture.handle();
    },
  });
  const webEvents = () => events.filter((e) => e.type >= 70 && e.type <= 73).map((e) => (e.type === 71 ? `71:${String(e.details.code)}` : String(e.type)));
  return { clock, capture, started, events, rtmp, ended, session, webEvents, cleanup: () => rmSync(workDir, { recursive: true, force: true }) };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

test('a renderer crash reloads once (73 renderer_crashed); a second ends with 71 code 6, abnormally', async () => {
  const s = setup({});
  try {
    await s.session.start();
    s.capture.emit({ kind: 'renderer-crashed' });
    await settle();
    assert.deepEqual(s.capture.calls, ['load', 'reload']);
    s.capture.emit({ kind: 'renderer-crashed' });
    await settle();
    assert.deepEqual(s.webEvents(), ['70', '73', '71:6']);
    assert.equal(s.events.find((e) => e.type === 73)!.details.reason, 'renderer_crashed');
    assert.equal(s.ended[0]?.reason, 'error');
  } finally {
    s.cleanup();
  }
});

test('readyTimeout on the injected clock: no encoder before notifyReady, one reload, then 71 code 4; a ready page resumes', async () => {
  const s = setup({ readyTimeout: 5 });
  try {
    await s.session.start();
    s.clock.advance(4999);
    assert.deepEqual(s.capture.calls, ['load']);
    s.clock.advance(1);
    await settle();
    assert.deepEqual(s.capture.calls, ['load', 'reload']);
    s.clock.advance(5000);
    await settle();
    assert.deepEqual(s.webEvents(), ['70', '73', '71:4']);
  } finally {
    s.cleanup();
  }
  const r = setup({ readyTimeout: 5 });
  try {
    await r.session.start();
    r.clock.advance(3000);
    r.capture.emit({ kind: 'page-ready', atMs: r.clock.now() });
    r.clock.advance(10_000);
    await settle();
    assert.deepEqual(r.capture.calls, ['load', 'resume']);
    assert.deepEqual(r.webEvents(), ['70']);
  } finally {
    r.cleanup();
  }
});

test('onhold: a resume wished before notifyReady waits for it; CDN statuses follow the hold', async () => {
  const url = 'rtmp://127.0.0.1:1935/live/x';
  const s = setup({ readyTimeout: 5, onhold: true }, url);
  try {
    await s.session.start();
    await s.session.update({ onhold: false });
    assert.deepEqual(s.capture.calls, ['load'], 'not ready yet: nothing is encoded');
    s.capture.emit({ kind: 'page-ready', atMs: s.clock.now() });
    await settle();
    s.capture.emit({ kind: 'push-publishing', rtmpUrl: url });
    await s.session.update({ onhold: true });
    assert.deepEqual(s.capture.calls, ['load', 'resume', 'pause']);
    assert.deepEqual(s.rtmp.map(([, st]) => st), ['onhold', 'publishing', 'onhold']);
    await s.session.stop();
    assert.deepEqual(s.webEvents(), ['70', '71:0']);
    assert.equal(s.rtmp.at(-1)![1], 'disconnected');
    assert.ok(s.events.some((e) => e.type === 100 && e.details.status === 'publishing' && e.details.rtmpUrl === url));
  } finally {
    s.cleanup();
  }
});

test('a stop at maxRecordingHour (the control plane\'s timer) is 71 code 1', async () => {
  const s = setup({ maxRecordingHour: 2 });
  try {
    await s.session.start();
    s.clock.advance(2 * 3600 * 1000);
    await s.session.stop();
    const stopped = s.events.find((e) => e.type === 71)!.details;
    assert.deepEqual([stopped.code, stopped.message, stopped.details], [1, 'max_recording_hour', 'max recording hour is 2']);
    assert.equal(s.ended.length, 0, 'an API-side stop is not reported as the recorder ending by itself');
  } finally {
    s.cleanup();
  }
});

test('CDN statuses: each change once; reports about an earlier target dropped; a target change never pauses the recording', async () => {
  const url = 'rtmp://127.0.0.1:1935/live/a';
  const next = 'rtmp://127.0.0.1:1935/live/b';
  const s = setup({}, url);
  try {
    await s.session.start();
    s.capture.emit({ kind: 'push-connecting', rtmpUrl: url });
    s.capture.emit({ kind: 'push-publishing', rtmpUrl: url });
    s.capture.emit({ kind: 'push-publishing', rtmpUrl: url });
    s.capture.emit({ kind: 'push-failed', rtmpUrl: url, message: 'Broken pipe' });
    await s.session.update({ rtmpUrl: next });
    s.capture.emit({ kind: 'push-failed', rtmpUrl: url, message: 'late report of the old pusher' });
    s.capture.emit({ kind: 'push-connecting', rtmpUrl: next });
    s.capture.emit({ kind: 'push-publishing', rtmpUrl: next });
    assert.deepEqual(s.rtmp, [
      [url, 'connecting'],
      [url, 'publishing'],
      [url, 'disconnected'],
      [next, 'connecting'],
      [next, 'publishing'],
    ]);
    assert.equal(s.events.filter((e) => e.type === 100).length, 5, 'event 100 once per change');
    assert.deepEqual(s.capture.calls, ['load', 'setPushUrl'], 'only the push target changed');
    assert.equal(s.ended.length, 0, 'a push failure does not end the recording');
    await s.session.stop();
    assert.deepEqual(s.rtmp.at(-1), [next, 'disconnected']);
  } finally {
    s.cleanup();
  }
});

test('with the page URL guard, the browser is pinned to the address approved at launch; a refused address ends with 71 code 5 and no browser', async () => {
  const resolveTo = (address: string): OutboundPolicy => ({ allowPrivate: false, resolve: async () => [{ address, family: 4 }] });
  const s = setup({ url: 'https://board.example.com/room/1' }, undefined, resolveTo('93.184.216.34'));
  try {
    await s.session.start();
    assert.deepEqual(s.started.map((o) => o.pinnedHosts), [[{ host: 'board.example.com', address: '93.184.216.34' }]]);
    assert.equal(s.started[0]?.openNetwork, false);
    assert.deepEqual(s.capture.calls, ['load']);
  } finally {
    s.cleanup();
  }
  // The name now answers a private address (rebinding after start's check): no browser is started.
  const r = setup({ url: 'https://board.example.com/room/1' }, undefined, resolveTo('10.1.2.3'));
  try {
    await r.session.start();
    await settle();
    assert.equal(r.started.length, 0);
    assert.deepEqual(r.webEvents(), ['71:5']);
    assert.match(String(r.events.find((e) => e.type === 71)!.details.details), /10\.1\.2\.3/);
    assert.equal(r.ended[0]?.reason, 'error');
  } finally {
    r.cleanup();
  }
  // Without a policy (private targets allowed: development, tests) nothing is resolved or pinned.
  const d = setup({});
  try {
    await d.session.start();
    assert.deepEqual(d.started[0]?.pinnedHosts, []);
  } finally {
    d.cleanup();
  }
});

test('recording.webPageHosts: listed hosts pass the guard and are pinned beside the page host; a refused one is left out; * opens the rest', async () => {
  const byName: OutboundPolicy = {
    allowPrivate: false,
    resolve: async (host) => [{ address: host === 'cdn.example.net' ? '151.101.1.69' : host === 'inside.example' ? '10.0.0.8' : '93.184.216.34', family: 4 }],
  };
  const s = setup({ url: 'https://board.example.com/room/1' }, undefined, byName, ['cdn.example.net', 'inside.example', 'board.example.com']);
  try {
    await s.session.start();
    assert.deepEqual(s.started[0]?.pinnedHosts, [
      { host: 'board.example.com', address: '93.184.216.34' },
      { host: 'cdn.example.net', address: '151.101.1.69' },
    ]);
    assert.equal(s.started[0]?.openNetwork, false);
    assert.deepEqual(s.webEvents(), ['70'], 'a refused extra host does not stop the page: it starts (70), no 71');
  } finally {
    s.cleanup();
  }
  const o = setup({ url: 'https://board.example.com/room/1' }, undefined, byName, ['*']);
  try {
    await o.session.start();
    assert.equal(o.started[0]?.pinnedHosts?.length, 1);
    assert.equal(o.started[0]?.openNetwork, true);
  } finally {
    o.cleanup();
  }
});
