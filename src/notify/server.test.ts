import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { startTestServer, waitUntil, TEST_CUSTOMER_AUTH } from '../testing/index.ts';
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

test('get-ncs-ip: production warns at start when it would answer a host name; configured addresses are answered as set', async () => {
  const named: string[] = [];
  const s = await startTestServer({ env: { REELTIME_ENV: 'production', REELTIME_PUBLIC_URL: 'https://rec.example.test' }, logLines: named });
  try {
    const warning = named.map((l) => JSON.parse(l) as { level: number; msg: string; hosts?: string[] }).find((l) => /ncs\/ip answers host names/.test(l.msg));
    assert.ok(warning, named.join(''));
    assert.equal(warning.level, 40);
    assert.deepEqual(warning.hosts, ['rec.example.test']);
  } finally {
    await s.close();
  }
  const set: string[] = [];
  const t = await startTestServer({
    env: { REELTIME_ENV: 'production', REELTIME_PUBLIC_URL: 'https://rec.example.test', REELTIME_NOTIFY_NCS_HOSTS: '203.0.113.7,198.51.100.8' },
    logLines: set,
  });
  try {
    assert.ok(!set.some((l) => l.includes('ncs/ip answers host names')), set.join(''));
    const res = await fetch(`${t.url}/v1/ncs/ip`, { headers: { authorization: TEST_CUSTOMER_AUTH } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { data: { service: { hosts: [{ primaryIP: '203.0.113.7' }, { primaryIP: '198.51.100.8' }] } } });
  } finally {
    await t.close();
  }
});
