import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../../testing/index.ts';
import { APP, recordingClient, storageConfig } from '../individual/testing/harness.ts';
import { webService } from './testing/web-client.ts';

test('web start: with private URLs refused, a loopback or metadata page URL is a 400 naming the field (nothing is launched)', async () => {
  const server = await startTestServer({ values: { recording: { rateLimitPerSecond: 0 }, notify: { allowPrivateUrls: false } } });
  try {
    const { api } = recordingClient(server.url);
    const base = `/v1/apps/${APP}/cloud_recording`;
    for (const url of ['http://127.0.0.1:9/page', 'http://169.254.169.254/latest/meta-data/']) {
      const acq = await api('POST', `${base}/acquire`, { cname: 'guard', uid: '1', clientRequest: { scene: 1 } });
      assert.equal(acq.status, 200, JSON.stringify(acq.body));
      const st = await api('POST', `${base}/resourceid/${String(acq.body.resourceId)}/mode/web/start`, {
        cname: 'guard',
        uid: '1',
        clientRequest: { storageConfig: storageConfig(), extensionServiceConfig: { extensionServices: [webService(url)] } },
      });
      assert.equal(st.status, 400, JSON.stringify(st.body));
      assert.match(String(st.body.reason), /extensionServices\[0\]\.serviceParam\.url/);
      assert.doesNotMatch(JSON.stringify(st.body), /test-secret-key/);
    }
  } finally {
    await server.close();
  }
});
