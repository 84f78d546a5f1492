import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../config/index.ts';
import { loadConfig } from '../server/config.ts';

const env = {
  REELTIME_APP_ID: '970CA35de60c44645bbae8a215061b33',
  REELTIME_APP_CERTIFICATE: '5CFd2fd1755d40ecb72977518be15d3b',
  REELTIME_CUSTOMER_ID: 'core',
  REELTIME_CUSTOMER_SECRET: 'core-secret',
  REELTIME_DATA_DIR: '/tmp/reeltime-config-test',
};

test('recording config: defaults, customers from file or environment, errors name the setting', () => {
  const d = loadConfig({ env, values: {} }).recording;
  assert.equal(d.rateLimitPerSecond, 10);
  assert.equal(d.rateLimitBurst, 10);
  assert.equal(d.maxConcurrentTasks, 50);
  assert.equal(d.stopTimeoutMs, 20_000);
  assert.equal(d.region, undefined);
  assert.deepEqual(d.customers, [{ id: 'core', secret: 'core-secret', appIds: [env.REELTIME_APP_ID] }]);

  const other = 'ab'.repeat(16);
  const f = loadConfig({ env, values: { recording: { customers: [{ id: 'x', secret: 'y', appIds: [other] }], region: 'EU' } } }).recording;
  assert.deepEqual(f.appIds, [env.REELTIME_APP_ID, other]);
  assert.equal(f.region, 'EU');
  const e = loadConfig({
    env: { ...env, REELTIME_RECORDING_CUSTOMERS: JSON.stringify([{ id: 'z', secret: 's', appIds: [other] }]), REELTIME_RECORDING_RATE_LIMIT_PER_SECOND: '0' },
    values: {},
  }).recording;
  assert.equal(e.customers[1]!.id, 'z');
  assert.equal(e.rateLimitPerSecond, 0);

  const bad = (values: Record<string, unknown>, extraEnv: Record<string, string> = {}) =>
    assert.throws(() => loadConfig({ env: { ...env, ...extraEnv }, values: values as never }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      return /recording|RECORDING/.test(err.setting);
    });
  assert.deepEqual(d.webPageHosts, []);
  assert.deepEqual(loadConfig({ env: { ...env, REELTIME_RECORDING_WEB_PAGE_HOSTS: 'cdn.example.net, api.example.com' }, values: {} }).recording.webPageHosts, ['cdn.example.net', 'api.example.com']);
  bad({}, { REELTIME_RECORDING_WEB_PAGE_HOSTS: 'cdn.example.net,*.evil' });
  bad({ recording: { webPageHosts: ['CDN.example.net'] } });
  bad({ recording: { customers: {} } });
  bad({ recording: { customers: [{ id: 'a:b', secret: 's', appIds: [] }] } });
  bad({ recording: { customers: [{ id: 'a', secret: 's', appIds: ['short'] }] } });
  bad({ recording: { region: 'US' } });
  bad({ recording: { maxConcurrentTasks: 0 } });
  assert.equal(d.individualSliceSeconds, 0, 'the service’s 15 s slices unless a test shortens them');
  assert.equal(loadConfig({ env: { ...env, REELTIME_RECORDING_INDIVIDUAL_SLICE_SECONDS: '4' }, values: {} }).recording.individualSliceSeconds, 4);
  bad({ recording: { individualSliceSeconds: 61 } });
  bad({ recording: { individualSliceSeconds: -1 } });
  assert.equal(d.mixSliceSeconds, 0, 'the service’s 15 s mix slices unless a test shortens them');
  assert.equal(loadConfig({ env: { ...env, REELTIME_RECORDING_MIX_SLICE_SECONDS: '4' }, values: {} }).recording.mixSliceSeconds, 4);
  bad({ recording: { mixSliceSeconds: 61 } });
  bad({}, { REELTIME_RECORDING_CUSTOMERS: '[not json' });
  assert.equal(d.mixFitLayers, true, 'mixes take the smallest simulcast layer that covers a region unless turned off');
  assert.equal(loadConfig({ env: { ...env, REELTIME_RECORDING_MIX_FIT_LAYERS: 'false' }, values: {} }).recording.mixFitLayers, false);
  assert.throws(
    () => loadConfig({ env, values: { recording: { mixFitLayers: 'sometimes' } } as never }),
    (err: unknown) => err instanceof ConfigError && /mixFitLayers/.test(`${err.setting} ${err.message}`),
  );
});
