import assert from 'node:assert/strict';
import { test } from 'node:test';
import { advertisedUrl, channelLeaseKey, redirectLocation, renewIntervalMs, shouldRelease } from './lease.ts';

test('redirect keeps the path and query of the request on the owner node', () => {
  assert.equal(
    redirectLocation('http://10.0.0.2:8080', '/rtc/v1/apps/a/channels/c/whip?uid=1&token=t'),
    'http://10.0.0.2:8080/rtc/v1/apps/a/channels/c/whip?uid=1&token=t',
  );
  assert.equal(redirectLocation('https://ch2.example/base/', '/rtc/x'), 'https://ch2.example/base/rtc/x');
  assert.equal(redirectLocation('ftp://h/', '/x'), undefined);
  assert.equal(redirectLocation('not a url', '/x'), undefined);
});

test('lease key: app ids case-insensitive, any channel name safe as a key part', () => {
  assert.deepEqual(channelLeaseKey('ABCdef', 'c'), channelLeaseKey('abcDEF', 'c'));
  assert.ok(channelLeaseKey('a', 'x:y z/€').every((p) => /^[A-Za-z0-9_-]+$/.test(p)));
  assert.notDeepEqual(channelLeaseKey('a', 'x'), channelLeaseKey('a', 'y'));
});

test('renewal three times per lease; release only when empty with no join in flight', () => {
  assert.equal(renewIntervalMs(15_000), 5000);
  assert.equal(shouldRelease(0, 0), true);
  assert.equal(shouldRelease(1, 0), false);
  assert.equal(shouldRelease(0, 1), false);
});

test('advertised URL: the configured public URL, or the bound one when the port was left to the system', () => {
  assert.equal(advertisedUrl('http://ch1.internal:8080', 'http://0.0.0.0:8080'), 'http://ch1.internal:8080');
  assert.equal(advertisedUrl('http://127.0.0.1:0', 'http://127.0.0.1:41234'), 'http://127.0.0.1:41234');
});
