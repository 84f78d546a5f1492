import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ManualClock } from '../../clock/index.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../log/index.ts';
import { startReeltime } from '../../server/index.ts';
import { openTestDatabase, TEST_CUSTOMER_SECRET, waitUntil } from '../../testing/index.ts';
import { recordingClient, startRequest } from '../testing/client.ts';
import { RecorderDouble } from '../testing/recorder-double.ts';

test('secrets of start requests never reach logs or responses, even on failures', async () => {
  let logged = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logged += chunk.toString();
      cb();
    },
  });
  const database = await openTestDatabase('sqlite');
  const clock = new ManualClock();
  const config = loadConfig({
    values: { recording: { rateLimitPerSecond: 0 } },
    env: {
      REELTIME_PORT: '0',
      REELTIME_DATA_DIR: '/tmp/reeltime-secrets-test',
      REELTIME_APP_ID: '970CA35de60c44645bbae8a215061b33',
      REELTIME_APP_CERTIFICATE: '5CFd2fd1755d40ecb72977518be15d3b',
      REELTIME_CUSTOMER_ID: 'test-customer',
      REELTIME_CUSTOMER_SECRET: TEST_CUSTOMER_SECRET,
    },
  });
  const server = await startReeltime({
    config,
    database,
    clock,
    listen: false,
    log: createLogger('trace', sink),
    recorders: [new RecorderDouble('mix', { failUpdate: true }), new RecorderDouble('individual', { failStart: true })],
  });
  const responses: string[] = [];
  try {
    const api = recordingClient(server.app);
    const cr = {
      ...startRequest('mix'),
      token: 'rtc-token-value',
      recordingConfig: { channelType: 0, decryptionMode: 1, secret: 'decryption-secret-value' },
    };
    const a = await api.acquire({ cname: 's', uid: '1', clientRequest: { startParameter: cr } });
    const st = await api.start(a.body.resourceId as string, 'mix', { cname: 's', uid: '1', clientRequest: cr });
    const rid = a.body.resourceId as string;
    const sid = st.body.sid as string;
    await waitUntil(async () => (await api.query(rid, sid, 'mix')).status === 200, { what: 'live' });
    responses.push(JSON.stringify(await api.query(rid, sid, 'mix')));
    responses.push(JSON.stringify(await api.update(rid, sid, 'mix', { cname: 's', uid: '1', clientRequest: { storageConfig: { ...(startRequest('mix').storageConfig as object), stsToken: 'sts-token-value' } } })));
    responses.push(JSON.stringify(await api.update(rid, sid, 'mix', { cname: 's', uid: '1', clientRequest: { storageConfig: { ...(startRequest('mix').storageConfig as object), secretKey: 5 } } })));
    responses.push(JSON.stringify(await api.stop(rid, sid, 'mix', { cname: 's', uid: '1', clientRequest: {} })));
    const b = await api.acquire({ cname: 's', uid: '2' });
    responses.push(JSON.stringify(await api.start(b.body.resourceId as string, 'individual', { cname: 's', uid: '2', clientRequest: { ...startRequest('individual'), token: 'rtc-token-value' } })));
    assert.ok(logged.includes('recording API failure'), 'the failing update was logged');
    assert.ok(logged.includes('recorder failed to start'), 'the failing launch was logged');
    for (const secret of ['super-secret-key-value', 'AKIATESTKEY', 'rtc-token-value', 'decryption-secret-value', 'sts-token-value', 'test-secret']) {
      assert.ok(!logged.includes(secret), `log contains ${secret}`);
      for (const r of responses) assert.ok(!r.includes(secret), `response contains ${secret}: ${r}`);
    }
  } finally {
    await server.close();
    await database.close();
  }
});
