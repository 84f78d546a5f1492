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
