/** The per-mode settings built at the dispatch boundary, from validated start requests (no server, no recorder). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIX_LAYOUT } from '../../../media/mix/index.ts';
import type { StartClientRequest } from '../../validation/types.ts';
import { evenCanvas, mixLayoutSettings, recorderSettings, settingsFor, type SettingsSource } from './index.ts';

const storageConfig = { vendor: 1, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } as StartClientRequest['storageConfig'];
const source = (mode: SettingsSource['mode'], cr: Partial<StartClientRequest>, extra: Partial<SettingsSource> = {}): SettingsSource => ({
  mode,
  scene: 0,
  clientRequest: { storageConfig, ...cr } as StartClientRequest,
  ...extra,
});
const individual = (cr: Partial<StartClientRequest>, extra: Partial<SettingsSource> = {}) => settingsFor(recorderSettings(source('individual', cr, extra)), 'individual');
const mix = (cr: Partial<StartClientRequest>, extra: Partial<SettingsSource> = {}) => settingsFor(recorderSettings(source('mix', cr, extra)), 'mix');
const webCr = (param: Record<string, unknown> = {}, rtmpUrl?: string): Partial<StartClientRequest> =>
  ({
    extensionServiceConfig: {
      extensionServices: [
        { serviceName: 'web_recorder_service', serviceParam: { url: 'http://127.0.0.1:1/p', audioProfile: 0, videoWidth: 640, videoHeight: 360, maxRecordingHour: 2, ...param } },
        ...(rtmpUrl ? [{ serviceName: 'rtmp_publish_service', serviceParam: { outputs: [{ rtmpUrl }] } }] : []),
      ],
    },
  }) as Partial<StartClientRequest>;
const web = (cr: Partial<StartClientRequest>, extra: Partial<SettingsSource> = {}) => settingsFor(recorderSettings(source('web', cr, extra)), 'web');

test('individual defaults: communication, audio+video for everybody, 30 s idle, HLS only, no snapshots, not on hold', () => {
  const s = individual({ recordingFileConfig: { avFileType: ['hls'] } });
  assert.equal(s.mode, 'individual');
  assert.deepEqual(s.subscription, { audio: true, video: true, lists: {}, videoLayer: 'high' });
  assert.equal(s.profile, 'communication');
  assert.equal(s.maxIdleMs, 30_000);
  assert.equal(s.hls, true);
  assert.equal(s.mp4, false);
  assert.equal(s.snapshotSec, undefined);
  assert.equal(s.streamMode, 'default');
  assert.deepEqual(s.postProcess, { kind: 'none' });
  assert.equal(s.onhold, false);
});

test('individual: live, mp4, snapshots, snapshot-only, scene 2 post-processing, uid lists', () => {
  const s = individual({
    recordingConfig: { channelType: 1, maxIdleTime: 5, streamMode: 'original', streamTypes: 0, unsubscribeAudioUids: ['7'] },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    snapshotConfig: { fileType: ['jpg'] },
  });
  assert.deepEqual([s.profile, s.maxIdleMs, s.mp4, s.snapshotSec, s.streamMode], ['live', 5000, true, 10, 'original']);
  assert.deepEqual(s.subscription, { audio: true, video: false, lists: { audio: { kind: 'except', uids: ['7'] } }, videoLayer: 'high' });
  const snapOnly = individual({ snapshotConfig: { captureInterval: 5, fileType: ['jpg'] } });
  assert.deepEqual([snapOnly.hls, snapOnly.mp4, snapOnly.snapshotSec], [false, false, 5]);
  const audioMix = individual(
    { transcodeOptions: { transConfig: { transMode: 'audioMix' }, container: { format: 'm4a' }, audio: { sampleRate: '16000', channels: '1', bitrate: '32000' } } },
    { scene: 2 },
  );
  assert.deepEqual(audioMix.postProcess, { kind: 'audioMix', format: 'm4a', sampleRate: 16000, bitrate: 32000, channels: 1 });
  const defMix = individual({ transcodeOptions: { transConfig: { transMode: 'audioMix' } } }, { scene: 2 });
  assert.deepEqual(defMix.postProcess, { kind: 'audioMix', format: 'mp3', sampleRate: 48000, bitrate: 48000, channels: 2 });
  const pt = individual({ transcodeOptions: { transConfig: { transMode: 'postponeTranscoding' } } }, { scene: 2 });
  assert.deepEqual(pt.postProcess, { kind: 'postponeTranscoding' });
  assert.deepEqual(individual({ transcodeOptions: { transConfig: { transMode: 'postponeTranscoding' } } }).postProcess, { kind: 'none' }, 'scene 0 ignores transcodeOptions');
});

test('the hold: the start request’s unless the stored one (the last update’s) says otherwise', () => {
  assert.equal(individual({ recordingConfig: { channelType: 0, onhold: true } }).onhold, true);
  assert.equal(individual({ recordingConfig: { channelType: 0, onhold: true } }, { onhold: false }).onhold, false);
  assert.equal(mix({}, { onhold: true }).onhold, true);
  assert.equal(web(webCr({ onhold: true })).onhold, true);
  assert.equal(web(webCr({ onhold: true }), { onhold: false }).onhold, false);
});

test('mix: the service defaults without transcodingConfig; an unlisted fps becomes 15', () => {
  const s = mix({ recordingConfig: { channelType: 0 } });
  assert.deepEqual([s.canvas, s.fps, s.bitrateKbps, s.audioProfile.id, s.mp4, s.maxIdleMs], [{ width: 360, height: 640 }, 15, 500, 0, false, 30_000]);
  assert.equal(s.layout.kind, MIX_LAYOUT.floating);
  assert.equal(s.layout.backgroundColor, '#000000');
  assert.deepEqual(s.subscription, { audio: true, video: true, lists: {}, videoLayer: 'high' });
  const odd = mix({
    recordingConfig: { channelType: 1, streamTypes: 0, audioProfile: 2, transcodingConfig: { width: 640, height: 360, fps: 12, bitrate: 800 } },
    recordingFileConfig: { avFileType: ['hls', 'mp4'] },
  });
  assert.deepEqual([odd.fps, odd.bitrateKbps, odd.audioProfile.channels, odd.profile, odd.mp4], [15, 800, 2, 'live', true]);
  assert.deepEqual([odd.subscription.audio, odd.subscription.video], [true, false]);
  assert.deepEqual(mix({ recordingConfig: { channelType: 0, transcodingConfig: { width: 375, height: 667 } } }).canvas, { width: 374, height: 666 });
});

test('mixLayoutSettings: every omitted field takes its default; request spellings mapped', () => {
  const full = mixLayoutSettings({
    mixedVideoLayout: 3,
    backgroundColor: '#ff0000',
    backgroundImage: 'http://127.0.0.1/a.png',
    layoutConfig: [{ uid: '', x_axis: 0, y_axis: 0, width: 0.5, height: 0.5, render_mode: 1 }],
    backgroundConfig: [{ uid: '7', image_url: 'http://127.0.0.1/b.png' }, { uid: '8', image_url: 'http://127.0.0.1/a.png' }],
  });
  assert.equal(full.backgroundColor, '#FF0000');
  assert.equal(full.backgroundImageUrl, 'http://127.0.0.1/a.png');
  assert.deepEqual(full.customRegions, [{ uid: null, x: 0, y: 0, width: 0.5, height: 0.5, alpha: 1, renderMode: 'fit' }]);
  assert.deepEqual(full.userBackgrounds.map((b) => [b.uid, b.renderMode]), [['7', 'crop'], ['8', 'crop']]);
  const next = mixLayoutSettings({ mixedVideoLayout: 2, maxResolutionUid: '5' });
  assert.deepEqual([next.kind, next.maxResolutionUid, next.backgroundColor, next.backgroundImageUrl, next.customRegions.length], [2, '5', '#000000', null, 0]);
  assert.equal(mixLayoutSettings({ mixedVideoLayout: 100 }).kind, MIX_LAYOUT.activeSpeaker);
});

test('mix of a resumed session: the latest updateLayout replaces start’s layout, the canvas stays', () => {
  const start = { recordingConfig: { channelType: 0, transcodingConfig: { width: 640, height: 360, fps: 15, bitrate: 800, mixedVideoLayout: 1, backgroundColor: '#FF0000' } } } as const;
  assert.equal(mix(start).layout.kind, MIX_LAYOUT.bestFit);
  assert.equal(mix(start).layout.backgroundColor, '#FF0000');
  const s = mix(start, { layout: { mixedVideoLayout: 2, maxResolutionUid: '5' } });
  assert.deepEqual([s.layout.kind, s.layout.maxResolutionUid, s.layout.backgroundColor], [MIX_LAYOUT.vertical, '5', '#000000']);
  assert.deepEqual(s.layout, mixLayoutSettings({ mixedVideoLayout: 2, maxResolutionUid: '5' }), 'the same translation as a running recorder’s updateLayout');
  assert.deepEqual(s.canvas, { width: 640, height: 360 });
});

test('mix: an odd canvas side loses one pixel (H.264 4:2:0 needs even sides)', () => {
  assert.deepEqual(evenCanvas(375, 667), { width: 374, height: 666 });
  assert.deepEqual(evenCanvas(640, 360), { width: 640, height: 360 });
});

test('web: the page and encoder fields, MP4 length from maxVideoDuration, files asked for, the push target now', () => {
  const s = web({ ...webCr({ videoFps: 30, videoBitrate: 2000, mobile: true, maxVideoDuration: 30, readyTimeout: 5 }, 'rtmp://127.0.0.1/live/a') });
  assert.deepEqual(
    [s.mode, s.url, s.width, s.height, s.videoFps, s.videoBitrateKbps, s.audioProfile, s.mobile, s.maxRecordingHour, s.mp4SplitSec, s.readyTimeoutMs],
    ['web', 'http://127.0.0.1:1/p', 640, 360, 30, 2000, 0, true, 2, 1800, 5000],
  );
  assert.deepEqual([s.rtmpUrl, s.hls, s.mp4, s.onhold], ['rtmp://127.0.0.1/live/a', true, false, false]);
  const d = web({ ...webCr(), recordingFileConfig: { avFileType: ['hls', 'mp4'] } });
  assert.deepEqual([d.videoFps, d.videoBitrateKbps, d.mobile, d.mp4SplitSec, d.readyTimeoutMs, d.rtmpUrl, d.mp4], [undefined, undefined, false, 7200, 0, undefined, true]);
  // A recorder resuming after an update pushes where the update said, as the running one did.
  assert.equal(web(webCr({}, 'rtmp://127.0.0.1/live/a'), { rtmp: [{ rtmpUrl: 'rtmp://127.0.0.1/live/b' }] }).rtmpUrl, 'rtmp://127.0.0.1/live/b');
  assert.throws(() => recorderSettings(source('web', {})), /extensionServiceConfig\.extensionServices/);
});

/** Fails on anything but primitives, arrays and plain objects (no functions, class instances, maps). */
function assertPlain(v: unknown, at: string): void {
  if (v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v)) return;
  assert.equal(typeof v, 'object', `${at} is ${typeof v}`);
  const proto = Object.getPrototypeOf(v);
  assert.ok(proto === Object.prototype || proto === Array.prototype, `${at} is a ${proto?.constructor?.name}`);
  for (const [k, e] of Object.entries(v as object)) assertPlain(e, `${at}.${k}`);
}

test('settings are plain, frozen data naming their mode; another mode’s are refused', () => {
  const all = [
    individual({ transcodeOptions: { transConfig: { transMode: 'audioMix' } } }, { scene: 2 }),
    mix({ recordingConfig: { channelType: 0, transcodingConfig: { mixedVideoLayout: 3, layoutConfig: [{ x_axis: 0, y_axis: 0, width: 1, height: 1 }] } } }),
    web(webCr()),
  ];
  assert.deepEqual(all.map((s) => s.mode), ['individual', 'mix', 'web']);
  for (const s of all) {
    assert.ok(Object.isFrozen(s), `${s.mode} settings frozen`);
    assertPlain(s, s.mode);
  }
  assert.throws(() => settingsFor(individual({}), 'mix'), /settings\.mode: a individual session given to the mix recorder/);
});
