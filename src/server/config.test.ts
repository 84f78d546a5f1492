import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../config/index.ts';
import { loadConfig } from './config.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'reeltime-cfg-'));

test('dev defaults generate credentials once and persist them in the data dir', () => {
  const cwd = tmp();
  const a = loadConfig({ cwd, env: {} });
  assert.equal(a.port, 8080);
  assert.equal(a.dataDir, join(cwd, 'data'));
  assert.match(a.appId, /^[0-9a-f]{32}$/);
  assert.match(a.appCertificate, /^[0-9a-f]{32}$/);
  assert.equal(a.generatedCredentials, true);
  const b = loadConfig({ cwd, env: {} });
  assert.equal(b.appCertificate, a.appCertificate);
  assert.equal(b.customerSecret, a.customerSecret);
  const stored = JSON.parse(readFileSync(join(cwd, 'data', 'dev-credentials.json'), 'utf8'));
  assert.equal(stored.appId, a.appId);
  assert.ok(Object.isFrozen(a));
});

test('environment overrides the file, and bad values name the setting', () => {
  const cwd = tmp();
  const c = loadConfig({ cwd, values: { port: 9000 }, env: { REELTIME_PORT: '9100' } });
  assert.equal(c.port, 9100);
  assert.throws(() => loadConfig({ cwd, env: { REELTIME_PORT: 'abc' } }), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.match((e as Error).message, /REELTIME_PORT/);
    return true;
  });
  assert.throws(() => loadConfig({ cwd, env: { REELTIME_APP_ID: 'xyz' } }), /REELTIME_APP_ID/);
  assert.throws(() => loadConfig({ cwd, env: { REELTIME_ENV: 'production' } }), /REELTIME_APP_ID.*required/);
});

test('cluster peers: origins and IP ranges from the environment or the file; anything else names the setting', () => {
  const cwd = tmp();
  assert.deepEqual(loadConfig({ cwd, env: {} }).clusterPeers, []);
  assert.deepEqual(loadConfig({ cwd, env: { REELTIME_CLUSTER_PEERS: 'http://10.0.0.5:8080/, 10.1.0.0/16' } }).clusterPeers, ['http://10.0.0.5:8080', '10.1.0.0/16']);
  assert.deepEqual(loadConfig({ cwd, values: { clusterPeers: ['https://node-b.internal'] }, env: {} }).clusterPeers, ['https://node-b.internal']);
  assert.throws(() => loadConfig({ cwd, env: { REELTIME_CLUSTER_PEERS: 'http://10.0.0.5:8080/rtc' } }), /REELTIME_CLUSTER_PEERS/);
  assert.throws(() => loadConfig({ cwd, env: { REELTIME_CLUSTER_PEERS: 'node-b' } }), /REELTIME_CLUSTER_PEERS/);
});
