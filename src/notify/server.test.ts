import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { startTestServer, waitUntil } from '../testing/index.ts';
import type { NotifyModule } from './index.ts';
import { APP_ID, event, startReceiver } from './test-helpers.ts';

test('the composed server delivers events to the webhook configured through the environment', async () => {
  const rx = await startReceiver();
  const secret = 'env-secret-7d1c';
  const s = await startTestServer({
    env: { REELTIME_NOTIFY_WEBHOOK_URL: rx.url, REELTIME_NOTIFY_WEBHOOK_SECRET: secret, REELTIME_NOTIFY_NCS_HOSTS: '198.51.100.7' },
  });
  try {
    const notify = s.modules.find((m) => m.name === 'notify') as NotifyModule;
    assert.deepEqual(notify.ncsHosts(), ['198.51.100.7']);
    await notify.emit(event('sid-srv', 4, { msgName: 'cloud_recording_file_infos', fileList: 'sid-srv_room-1.m3u8' }));
    await waitUntil(async () => (await notify.deliveries({ appId: APP_ID }))[0]?.status === 'delivered', { what: 'delivered' });
    const r = rx.received[0]!;
    assert.equal(r.headers['agora-signature-v2'], createHmac('sha256', secret).update(r.raw).digest('hex'));
    assert.equal(rx.bodies()[0]?.payload.details.fileList, 'sid-srv_room-1.m3u8');
    const health = await (await fetch(`${s.url}/healthz`)).text();
    assert.ok(!health.includes(secret));
  } finally {
    await s.close();
    await rx.close();
  }
});
