import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, type JsonObject } from '../config/index.ts';
import { loadConfig } from '../server/config.ts';

const APP = '970CA35de60c44645bbae8a215061b33';
const creds = {
  REELTIME_APP_ID: APP,
  REELTIME_APP_CERTIFICATE: '5CFd2fd1755d40ecb72977518be15d3b',
  REELTIME_CUSTOMER_ID: 'c',
  REELTIME_CUSTOMER_SECRET: 'customer-secret-0123456789',
};
const load = (values: JsonObject, env: Record<string, string> = {}) =>
  loadConfig({ cwd: mkdtempSync(join(tmpdir(), 'reeltime-ncfg-')), values, env: { ...creds, ...env } }).notify;

test('notify config: defaults, per-app webhooks, and the environment pair for the primary app', () => {
  const d = load({ publicUrl: 'https://rec.example.org:8443' });
  assert.deepEqual(d.webhooks, {});
  assert.equal(d.allowPrivateUrls, true, 'development default');
  assert.deepEqual(d.ncsHosts, ['rec.example.org']);
  assert.equal(d.timeoutMs, 10_000);
  assert.deepEqual(d.retryDelaysMs, [0, 10_000, 60_000]);
  assert.equal(d.retentionHours, 168);
  assert.equal(load({}, { REELTIME_ENV: 'production' }).allowPrivateUrls, false, 'production default');
  assert.equal(load({}, { REELTIME_ENV: 'production', REELTIME_ALLOW_PRIVATE_URLS: 'true' }).allowPrivateUrls, true);
  assert.equal(load({ notify: { allowPrivateUrls: false } }).allowPrivateUrls, false);

  const c = load(
    { notify: { webhooks: { other: { url: 'https://b.example/hook', secret: 's2' } }, ncsHosts: ['203.0.113.5'], retryDelaysMs: [0, 5] } },
    { REELTIME_NOTIFY_WEBHOOK_URL: 'https://a.example/ncs', REELTIME_NOTIFY_WEBHOOK_SECRET: 's1', REELTIME_NOTIFY_TIMEOUT_MS: '250' },
  );
  assert.deepEqual(c.webhooks, { other: { url: 'https://b.example/hook', secret: 's2' }, [APP]: { url: 'https://a.example/ncs', secret: 's1' } });
  assert.deepEqual(c.ncsHosts, ['203.0.113.5']);
  assert.equal(c.timeoutMs, 250);
  assert.deepEqual(c.retryDelaysMs, [0, 5]);
  assert.deepEqual(load({}, { REELTIME_NOTIFY_RETRY_DELAYS_MS: '0,100,200', REELTIME_NOTIFY_NCS_HOSTS: '1.2.3.4, 5.6.7.8' }).retryDelaysMs, [0, 100, 200]);
  assert.deepEqual(load({}, { REELTIME_NOTIFY_NCS_HOSTS: '1.2.3.4, 5.6.7.8' }).ncsHosts, ['1.2.3.4', '5.6.7.8']);
});

test('bad notify settings name the setting and never echo the secret', () => {
  const cases: [JsonObject, Record<string, string>, RegExp][] = [
    [{ notify: { webhooks: [] } }, {}, /notify\.webhooks/],
    [{ notify: { webhooks: { a: { url: 'ftp://x/', secret: 's' } } } }, {}, /notify\.webhooks\.a\.url.*http/],
    [{ notify: { webhooks: { a: { url: 'nope', secret: 's' } } } }, {}, /notify\.webhooks\.a\.url/],
    [{ notify: { webhooks: { a: { url: 'https://x/' } } } }, {}, /notify\.webhooks\.a\.secret/],
    [{}, { REELTIME_NOTIFY_WEBHOOK_URL: 'https://x/' }, /REELTIME_NOTIFY_WEBHOOK_SECRET.*required/],
    [{}, { REELTIME_NOTIFY_WEBHOOK_SECRET: 'topsecret' }, /REELTIME_NOTIFY_WEBHOOK_URL.*required/],
    [{}, { REELTIME_NOTIFY_WEBHOOK_URL: 'gopher://x/', REELTIME_NOTIFY_WEBHOOK_SECRET: 'topsecret' }, /REELTIME_NOTIFY_WEBHOOK_URL/],
    [{}, { REELTIME_NOTIFY_TIMEOUT_MS: '0' }, /REELTIME_NOTIFY_TIMEOUT_MS/],
    [{ notify: { retryDelaysMs: [0, -1] } }, {}, /notify\.retryDelaysMs/],
    [{}, { REELTIME_NOTIFY_RETRY_DELAYS_MS: '0,soon' }, /REELTIME_NOTIFY_RETRY_DELAYS_MS/],
    [{}, { REELTIME_ALLOW_PRIVATE_URLS: 'maybe' }, /REELTIME_ALLOW_PRIVATE_URLS/],
  ];
  for (const [values, env, why] of cases) {
    assert.throws(() => load(values, env), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.match(e.message, why);
      assert.doesNotMatch(e.message, /topsecret/);
      return true;
    });
  }
});
