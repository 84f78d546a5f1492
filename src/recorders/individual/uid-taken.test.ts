import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitUntil } from '../../testing/wait.ts';
import { APP, rtcToken, startHarness, storageConfig } from './testing/harness.ts';

/**
 * The spec's recording uid "must not duplicate any UID in the channel": start refuses a uid a publisher already
 * uses (400 code 2 naming `uid`), and a publisher that joins later with the recorder's uid gets warnCode 1107, once.
 */
for (const mode of ['individual', 'mix'] as const) {
  test(`${mode}: a recording uid a publisher uses is refused at start; a publisher joining later with it is warned about once`, async () => {
    const h = await startHarness({ mode });
    try {
      const cname = `uid-taken-${mode}`;
      await h.publish({ cname, uid: 401, color: 'red', toneHz: 440, codec: 'h264', mode: 'replay' });
      const base = `/v1/apps/${APP}/cloud_recording`;
      const recordingConfig = mode === 'individual' ? { channelType: 0, subscribeUidGroup: 0 } : { channelType: 0 };
      const acq = await h.api('POST', `${base}/acquire`, { cname, uid: '401', clientRequest: {} });
      assert.equal(acq.status, 200, JSON.stringify(acq.body));
      const resourceId = String(acq.body.resourceId);
      const refused = await h.api('POST', `${base}/resourceid/${encodeURIComponent(resourceId)}/mode/${mode}/start`, {
        cname,
        uid: '401',
        clientRequest: { token: rtcToken(cname, 401, 2), storageConfig: storageConfig(), recordingConfig },
      });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 2);
      assert.match(String(refused.body.reason), /^uid: 401 is the uid of a publisher in channel/);
      assert.equal(refused.body.uid, '401');

      // A uid nobody uses starts; then a publisher joins with it.
      const { resourceId: rid, sid } = await h.startRecording(cname, '402', { token: rtcToken(cname, 402, 2), storageConfig: storageConfig(), recordingConfig });
      const warnings = () => h.events.filter((e) => e.payload.sid === sid && e.eventType === 2 && e.payload.details.warnCode === 1107);
      await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 40), { timeoutMs: 30_000, intervalMs: 100, what: 'recorder joined' });
      await h.publish({ cname, uid: 402, color: 'blue', toneHz: 880, codec: 'h264', mode: 'replay' });
      await waitUntil(() => warnings().length > 0, { timeoutMs: 30_000, intervalMs: 100, what: 'warnCode 1107' });
      const w = warnings()[0]!;
      assert.equal(w.payload.details.module, 0);
      assert.match(String(w.payload.details.warnMsg), /uid 402/);

      // Still sent once: the next membership change (another publisher) does not repeat it.
      await h.publish({ cname, uid: 403, color: 'green', toneHz: 660, codec: 'h264', mode: 'replay' });
      const stop = await h.api('POST', h.path(rid, sid, 'stop'), { cname, uid: '402', clientRequest: {} });
      assert.equal(stop.status, 200, JSON.stringify(stop.body));
      await waitUntil(() => h.events.some((e) => e.payload.sid === sid && e.eventType === 11), { timeoutMs: 30_000, intervalMs: 100, what: 'session exit' });
      assert.equal(warnings().length, 1);
    } finally {
      await h.close();
    }
  });
}
