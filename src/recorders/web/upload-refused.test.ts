/**
 * Web mode, a slice the uploader refuses (the spool is full): event 1, module 1 (uploader), errorCode 47, as in the
 * other modes, and the session goes on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startPageServer } from '../../media/capture/testing/page-server.ts';
import { waitUntil } from '../../testing/wait.ts';
import { startHarness, storageConfig } from '../individual/testing/harness.ts';
import { webClient, webService } from './testing/web-client.ts';

test('web mode: a slice the spool refuses (spool full) is error event 1, module 1, errorCode 47; the session goes on', async () => {
  const pages = await startPageServer({ plain: { colour: '#ff0000', toneHz: 440 } });
  // A one-byte spool refuses every file.
  const h = await startHarness({ recording: { webSliceSeconds: 3, webMp4SplitSeconds: 6 }, storage: { spoolMaxBytes: 1 } });
  try {
    const web = webClient(h.api);
    const cname = 'web-spool-full';
    const uid = '5101';
    const { resourceId, sid } = await web.start(cname, uid, {
      storageConfig: storageConfig(),
      extensionServiceConfig: { extensionServices: [webService(`${pages.origin}/plain`)] },
    });
    const refused = await waitUntil(
      () => h.events.find((e) => e.payload.sid === sid && e.eventType === 1 && e.payload.details.module === 1),
      { timeoutMs: 90_000, intervalMs: 200, what: 'uploader error event' },
    );
    assert.equal(refused.payload.details.errorCode, 47);
    assert.equal(refused.payload.details.errorLevel, 4);
    assert.match(String(refused.payload.details.errorMsg), /spool/i);
    // Not fatal: the session is still live.
    const q = await h.api('GET', web.path(resourceId, sid, 'query'));
    assert.equal(q.status, 200, JSON.stringify(q.body));
    const stop = await h.api('POST', web.path(resourceId, sid, 'stop'), { cname, uid, clientRequest: {} });
    assert.ok(stop.status === 200 || stop.status === 206, JSON.stringify(stop.body));
  } finally {
    await h.close();
    await pages.close();
  }
});
