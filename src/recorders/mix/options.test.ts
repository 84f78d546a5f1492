import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIX_LAYOUT } from '../../media/mix/index.ts';
import type { RecordingTask } from '../../recording/dispatch/index.ts';
import { subscriptionRequest } from '../../recording/dispatch/subscription.ts';
import type { StartClientRequest } from '../../recording/validation/types.ts';
import { evenCanvas, layoutImageUrls, layoutSettings, mixOptions } from './options.ts';

function task(clientRequest: StartClientRequest): RecordingTask {
  return {
    appId: 'a',
    cname: 'c',
    uid: '1',
    sid: 's',
    resourceId: 'r',
    mode: 'mix',
    scene: 0,
    clientRequest,
    subscription: subscriptionRequest(clientRequest.recordingConfig),
    startedAt: 0,
    resumed: false,
    previousFiles: [],
  };
}

const storage = { vendor: 1, region: 0, bucket: 'b', accessKey: 'k', secretKey: 's' } as StartClientRequest['storageConfig'];

test('mix options: the service defaults without transcodingConfig; an unlisted fps becomes 15', () => {
  const o = mixOptions(task({ storageConfig: storage, recordingConfig: { channelType: 0 } } as StartClientRequest));
  assert.deepEqual([o.canvas, o.fps, o.bitrateKbps, o.audioProfile.id, o.mp4, o.maxIdleMs], [{ width: 360, height: 640 }, 15, 500, 0, false, 30_000]);
  assert.equal(o.layout.kind, MIX_LAYOUT.floating);
  assert.equal(o.layout.backgroundColor, '#000000');
  assert.deepEqual(o.streams, { audio: true, video: true });
  const odd = mixOptions(
    task({
      storageConfig: storage,
      recordingConfig: { channelType: 1, streamTypes: 0, audioProfile: 2, transcodingConfig: { width: 640, height: 360, fps: 12, bitrate: 800 } },
      recordingFileConfig: { avFileType: ['hls', 'mp4'] },
    } as StartClientRequest),
  );
  assert.deepEqual([odd.fps, odd.bitrateKbps, odd.audioProfile.channels, odd.profile, odd.mp4], [15, 800, 2, 'live', true]);
  assert.deepEqual(odd.streams, { audio: true, video: false });
});

test('layoutSettings: every omitted field takes its default; request spellings mapped', () => {
  const full = layoutSettings({
    mixedVideoLayout: 3,
    backgroundColor: '#ff0000',
    backgroundImage: 'http://127.0.0.1/a.png',
    layoutConfig: [{ uid: '', x_axis: 0, y_axis: 0, width: 0.5, height: 0.5, render_mode: 1 }],
    backgroundConfig: [{ uid: '7', image_url: 'http://127.0.0.1/b.png' }, { uid: '8', image_url: 'http://127.0.0.1/a.png' }],
  });
  assert.equal(full.backgroundColor, '#FF0000');
  assert.deepEqual(full.customRegions, [{ uid: null, x: 0, y: 0, width: 0.5, height: 0.5, alpha: 1, renderMode: 'fit' }]);
  assert.deepEqual(full.userBackgrounds.map((b) => [b.uid, b.renderMode]), [['7', 'crop'], ['8', 'crop']]);
  assert.deepEqual(layoutImageUrls(full), ['http://127.0.0.1/a.png', 'http://127.0.0.1/b.png']);
  const next = layoutSettings({ mixedVideoLayout: 2, maxResolutionUid: '5' });
  assert.deepEqual([next.kind, next.maxResolutionUid, next.backgroundColor, next.backgroundImageUrl, next.customRegions.length], [2, '5', '#000000', null, 0]);
  assert.equal(layoutSettings({ mixedVideoLayout: 100 }).kind, MIX_LAYOUT.activeSpeaker);
});

test('mix options of a resumed session: the latest updateLayout replaces start’s layout, the canvas stays', () => {
  const start = {
    storageConfig: storage,
    recordingConfig: { channelType: 0, transcodingConfig: { width: 640, height: 360, fps: 15, bitrate: 800, mixedVideoLayout: 1, backgroundColor: '#FF0000' } },
  } as StartClientRequest;
  assert.equal(mixOptions(task(start)).layout.kind, MIX_LAYOUT.bestFit);
  const o = mixOptions({ ...task(start), resumed: true, layout: { mixedVideoLayout: 2, maxResolutionUid: '5' } });
  assert.deepEqual([o.layout.kind, o.layout.maxResolutionUid, o.layout.backgroundColor], [MIX_LAYOUT.vertical, '5', '#000000']);
  assert.deepEqual(o.canvas, { width: 640, height: 360 });
});

test('mix options: an odd canvas side loses one pixel (H.264 4:2:0 needs even sides)', () => {
  assert.deepEqual(evenCanvas(375, 667), { width: 374, height: 666 });
  assert.deepEqual(evenCanvas(640, 360), { width: 640, height: 360 });
});
