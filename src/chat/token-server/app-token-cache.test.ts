import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseToken, verifyChatApp } from '@reeltime/token';
import { ManualClock } from '../../clock/index.ts';
import { AppTokenCache } from './app-token-cache.ts';

const APP_ID = '970CA35de60c44645bbae8a215061b33';
const CERT = '5CFd2fd1755d40ecb72977518be15d3b';

test('app token cache: one entry, replaced after 80 % of its validity, never handed out expired', () => {
  const clock = new ManualClock();
  const cache = new AppTokenCache(APP_ID, CERT, 1000, clock);
  const first = cache.get();
  assert.equal(cache.get(), first);
  assert.equal(cache.builds, 1);
  const parsed = parseToken(first);
  assert.ok(parsed.ok);
  assert.equal(parsed.token.issueTs, Math.floor(clock.now() / 1000));
  clock.advance(799_000);
  assert.equal(cache.get(), first);
  clock.advance(1_000);
  const second = cache.get();
  assert.notEqual(second, first);
  assert.equal(cache.builds, 2);
  // Whenever it is used, the handed-out token still has at least 20 % of its validity left.
  for (let i = 0; i < 50; i++) {
    clock.advance(97_000);
    const t = cache.get();
    const check = verifyChatApp(t, { appId: APP_ID, appCertificate: CERT, now: Math.floor(clock.now() / 1000) });
    assert.ok(check.ok);
    assert.ok(check.expiresAt * 1000 - clock.now() >= 200_000);
  }
  cache.invalidate();
  assert.notEqual(cache.get(), '');
});

test('app token cache: bad credentials give an empty token', () => {
  assert.equal(new AppTokenCache('nothex', CERT, 100, new ManualClock()).get(), '');
});
