import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../config/index.ts';
import { loadConfig } from '../../server/config.ts';
import { parseProperties } from './properties.ts';
import { parseTokenServerSettings, propertiesReader } from './settings.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

function fromProps(text: string, env: Record<string, string> = {}) {
  return parseTokenServerSettings(propertiesReader(parseProperties(text), env, 'app.properties'));
}

test('settings: spec property names from a .properties file, env overrides', () => {
  const s = fromProps(`server.port=8090\nappid=${APP_ID}\nappcert=${CERT}\nexpire.second=6000\nappkey=org#app\ndomain=chat.local`, {
    REELTIME_CHAT_EXPIRE_SECOND: '600',
  });
  assert.deepEqual(s, {
    port: 8090,
    address: '127.0.0.1',
    appId: APP_ID,
    appCertificate: CERT,
    expireSecond: 600,
    appKey: 'org#app',
    domain: 'chat.local',
  });
});

test('settings: expire.second above 86400 is refused at start-up, naming the property', () => {
  assert.throws(
    () => fromProps('expire.second=86401'),
    (e: unknown) => e instanceof ConfigError && /expire\.second/.test(e.message) && /at most 86400/.test(e.message),
  );
  assert.throws(() => fromProps('expire.second=0'), /expire\.second.*at least 1/);
  assert.throws(() => fromProps('expire.second=soon'), /expire\.second.*integer/);
  assert.throws(() => fromProps('server.port=99999'), /server\.port/);
  assert.throws(() => fromProps('appid=xyz'), /appid.*32 hexadecimal/);
  assert.equal(fromProps('expire.second=86400').expireSecond, 86400);
  // Empty credentials and app key are legal at start-up: the spec reports them per request.
  const empty = fromProps('appid=\nappkey=');
  assert.equal(empty.appId, '');
  assert.equal(empty.appKey, '');
});

test('settings: the chat section of the JSON config, defaulting to the core app', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'reeltime-chatcfg-'));
  const env = { REELTIME_APP_ID: APP_ID, REELTIME_APP_CERTIFICATE: CERT, REELTIME_CUSTOMER_ID: 'c', REELTIME_CUSTOMER_SECRET: 's' };
  const c = loadConfig({ cwd, env, values: {} });
  assert.equal(c.chat.tokenServer.appId, APP_ID);
  assert.equal(c.chat.tokenServer.expireSecond, 6000);
  assert.equal(c.chat.appKey, 'reeltime#default');
  assert.equal(c.chat.tokenServer.domain, undefined);
  const d = loadConfig({ cwd, env, values: { chat: { expire: { second: 120 }, appkey: 'a#b', 'server.port': 9001 } } });
  assert.equal(d.chat.tokenServer.expireSecond, 120);
  assert.equal(d.chat.tokenServer.port, 9001);
  assert.equal(d.chat.appKey, 'a#b');
  assert.throws(() => loadConfig({ cwd, env, values: { chat: { 'expire.second': 90000 } } }), /chat\.expire\.second.*at most 86400/);
  assert.throws(() => loadConfig({ cwd, env: { ...env, REELTIME_CHAT_EXPIRE_SECOND: '100000' } }), /REELTIME_CHAT_EXPIRE_SECOND/);
});
