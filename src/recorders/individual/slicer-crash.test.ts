// A slicer (ffmpeg) that crashes mid-recording: the customer hears of it as of any ended stream (event 44, state 1,
// docs/notify.md) beside the error event, and the next packets start a new stream.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { test } from 'node:test';
import { rtcToken, startHarness, storageConfig } from './testing/harness.ts';
import { waitUntil } from '../../testing/wait.ts';

test('a video slicer killed mid-recording: error event, event 44 state 1 for its stream, then a new stream (44 state 0)', async () => {
  const slicers: { uid: string; kind: string; child: ChildProcess }[] = [];
  const h = await startHarness({ recorderTestHooks: { individual: { slicerLaunched: (s, child) => slicers.push({ ...s, child }) } } });
  try {
    const cname = 'ind-slicer-crash';
    await h.publish({ cname, uid: 501, color: 'green', toneHz: 500 });
    const { resourceId, sid } = await h.startRecording(cname, '9006', {
      token: rtcToken(cname, 9006, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, subscribeUidGroup: 0 },
      recordingFileConfig: { avFileType: ['hls'] },
    });
    const ofSession = () => h.events.filter((e) => e.payload.sid === sid).sort((a, b) => a.payload.sequence - b.payload.sequence);
    const states = (eventType: 43 | 44) => ofSession().filter((e) => e.eventType === eventType && e.payload.details.streamUid === '501').map((e) => e.payload.details.state);
    const video = await waitUntil(() => states(44).length >= 1 && slicers.find((s) => s.uid === '501' && s.kind === 'video'), {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: "501's video slicer",
    });
    assert.deepEqual(states(44), [0]);
    video.child.kill('SIGKILL');
    await waitUntil(() => states(44).length >= 2, { timeoutMs: 20_000, intervalMs: 100, what: 'event 44 after the crash' });
    assert.deepEqual(states(44).slice(0, 2), [0, 1], 'the crashed stream is reported stopped');
    const error = ofSession().find((e) => e.eventType === 1);
    assert.match(String(error?.payload.details.errorMsg), /video slicer of uid 501 stopped/);
    // The next packets start a new stream with a new slicer.
    await waitUntil(() => states(44).length >= 3, { timeoutMs: 30_000, intervalMs: 200, what: 'a new video stream' });
    assert.deepEqual(states(44).slice(0, 3), [0, 1, 0]);
    assert.equal(slicers.filter((s) => s.uid === '501' && s.kind === 'video').length, 2);
    const stop = await h.api('POST', h.path(resourceId, sid, 'stop'), { cname, uid: '9006', clientRequest: {} });
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    // The audio slicer was never touched: one stream, begun and ended.
    assert.deepEqual(states(43), [0, 1]);
    assert.deepEqual(states(44), [0, 1, 0, 1]);
  } finally {
    await h.close();
  }
});
