// mix's maxIdleTime on the injected clock. Apart from record.test.ts, which is timing-sensitive (its layout samples)
// and so runs with little beside it: this one measures no real-time behaviour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { rtcToken, startHarness, storageConfig } from '../individual/testing/harness.ts';
import { waitUntil } from '../../testing/wait.ts';

test('mix maxIdleTime on the injected clock: nobody left, the session ends with leave code 4, later calls 404', async () => {
  const clock = new ManualClock(Date.now());
  const h = await startHarness({ clock, mode: 'mix' });
  try {
    const cname = 'mix-idle';
    const pub = await h.publish({ cname, uid: 301, color: 'red', toneHz: 440, width: 160, height: 90 });
    const { resourceId, sid } = await h.startRecording(cname, '9004', {
      token: rtcToken(cname, 9004, 2),
      storageConfig: storageConfig(),
      recordingConfig: { channelType: 0, maxIdleTime: 5, streamTypes: 0 },
    });
    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 43 && e.payload.details.state === 0), { timeoutMs: 20_000, intervalMs: 200, what: 'audio in' });
    await pub.stop();
    // Nobody left: nothing happens until the injected clock passes maxIdleTime.
    await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 43 && e.payload.details.state === 1), { timeoutMs: 20_000, intervalMs: 200, what: 'audio gone' });
    clock.advance(4000);
    const q = await h.api('GET', h.path(resourceId, sid, 'query'));
    assert.equal(q.status, 200);
    assert.ok(!h.events.some((e) => e.payload.sid === sid && e.eventType === 41), 'no recorder_leave yet');
    clock.advance(1500);
    await waitUntil(async () => (await h.api('GET', h.path(resourceId, sid, 'query'))).status === 404, { timeoutMs: 30_000, intervalMs: 200, what: 'query 404 after idle exit' });
    assert.equal(h.events.find((e) => e.payload.sid === sid && e.eventType === 41)?.payload.details.leaveCode, 4);
    const late = await h.api('POST', h.path(resourceId, sid, 'updateLayout'), { cname, uid: '9004', clientRequest: {} });
    assert.deepEqual([late.status, late.body.reason], [404, 'failed to find worker']);
  } finally {
    await h.close();
  }
});
