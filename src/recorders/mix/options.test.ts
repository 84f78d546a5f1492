import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIX_LAYOUT } from '../../media/mix/index.ts';
import { mixLayoutSettings, type LayoutFields, type StartClientRequest } from '../../recording/index.ts';
import { testRecordingTask } from '../../recording/testing/index.ts';
import { layoutImageUrls, mixOptions } from './options.ts';

const storage = { vendor: 1, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } as StartClientRequest['storageConfig'];
const task = (cr: Partial<StartClientRequest>, layout?: LayoutFields) =>
  testRecordingTask({ mode: 'mix', clientRequest: { storageConfig: storage, ...cr } as StartClientRequest, layout });

test('mix options: the service defaults without transcodingConfig; an unlisted fps becomes 15', () => {
  const o = mixOptions(task({ recordingConfig: { channelType: 0 } }));
  assert.deepEqual([o.canvas, o.fps, o.bitrateKbps, o.audioProfile.id, o.mp4, o.maxIdleMs], [{ width: 360, height: 640 }, 15, 500, 0, false, 30_000]);
  assert.equal(o.layout.kind, MIX_LAYOUT.floating);
  assert.equal(o.layout.backgroundColor, '#000000');
  assert.deepEqual(o.streams, { audio: true, video: true });
  assert.deepEqual(o.subscription, { audio: { kind: 'everyone' }, video: { kind: 'everyone' } });
  const odd = mixOptions(
    task({
      recordingConfig: { channelType: 1, streamTypes: 0, audioProfile: 2, transcodingConfig: { width: 640, height: 360, fps: 12, bitrate: 800 } },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    }),
  );
  assert.deepEqual([odd.fps, odd.bitrateKbps, odd.audioProfile.channels, odd.profile, odd.mp4], [15, 800, 2, 'live', true]);
  assert.deepEqual(odd.streams, { audio: true, video: false });
  assert.deepEqual(odd.subscription, { audio: { kind: 'everyone' }, video: null });
});

test('layoutImageUrls: every image a layout names, once each', () => {
  const full = mixLayoutSettings({
    mixedVideoLayout: 3,
    backgroundImage: 'http://127.0.0.1/a.png',
    layoutConfig: [{ uid: '', x_axis: 0, y_axis: 0, width: 0.5, height: 0.5, render_mode: 1 }],
    backgroundConfig: [{ uid: '7', image_url: 'http://127.0.0.1/b.png' }, { uid: '8', image_url: 'http://127.0.0.1/a.png' }],
  });
  assert.deepEqual(layoutImageUrls(full), ['http://127.0.0.1/a.png', 'http://127.0.0.1/b.png']);
  assert.deepEqual(layoutImageUrls(mixLayoutSettings({})), []);
});

test('mix options of a resumed session: the latest updateLayout replaces start’s layout, the canvas stays', () => {
  const start = { recordingConfig: { channelType: 0, transcodingConfig: { width: 640, height: 360, fps: 15, bitrate: 800, mixedVideoLayout: 1, backgroundColor: '#FF0000' } } } as const;
  assert.equal(mixOptions(task(start)).layout.kind, MIX_LAYOUT.bestFit);
  const o = mixOptions({ ...task(start, { mixedVideoLayout: 2, maxResolutionUid: '5' }), resumed: true });
  assert.deepEqual([o.layout.kind, o.layout.maxResolutionUid, o.layout.backgroundColor], [MIX_LAYOUT.vertical, '5', '#000000']);
  assert.deepEqual(o.canvas, { width: 640, height: 360 });
});

test('mix options: an odd canvas side loses one pixel (H.264 4:2:0 needs even sides)', () => {
  assert.deepEqual(mixOptions(task({ recordingConfig: { channelType: 0, transcodingConfig: { width: 375, height: 667 } } })).canvas, { width: 374, height: 666 });
  assert.throws(() => mixOptions(testRecordingTask({ mode: 'individual', clientRequest: { storageConfig: storage } as StartClientRequest })), /settings\.mode/);
});
