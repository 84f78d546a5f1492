import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordingApiError } from '../errors.ts';
import { createAuthenticator, safeEqual } from './basic-auth.ts';
import { take } from '../../http/index.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const auth = createAuthenticator(
  [
    { id: 'one', secret: 's1', appIds: [A] },
    { id: 'two', secret: 'pa:ss', appIds: [B] },
  ],
  [A, B],
);
const header = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const key = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return (e as RecordingApiError).key;
  }
};

test('basic auth: header forms, secrets with colons, app ownership', () => {
  assert.equal(auth.customer(header('one', 's1')).id, 'one');
  assert.equal(auth.customer(header('two', 'pa:ss')).id, 'two');
  assert.equal(auth.customer(`basic   ${Buffer.from('one:s1').toString('base64')}`).id, 'one');
  assert.equal(key(() => auth.customer(undefined)), 'unauthorized');
  assert.equal(key(() => auth.customer('')), 'unauthorized');
  assert.equal(key(() => auth.customer(header('one', 's2'))), 'invalidCredentials');
  assert.equal(key(() => auth.customer(header('two', 's1'))), 'invalidCredentials');
  assert.equal(key(() => auth.customer('Basic')), 'invalidCredentials');
  assert.equal(key(() => auth.checkApp(auth.customer(header('one', 's1')), B)), 'invalidCredentials');
  assert.equal(key(() => auth.checkApp(auth.customer(header('one', 's1')), 'c'.repeat(32))), 'invalidAppId');
  assert.equal(key(() => auth.checkApp(auth.customer(header('one', 's1')), A)), 'ok');
  assert.equal(safeEqual('abc', 'abc'), true);
  assert.equal(safeEqual('abc', 'abcd'), false);
});

test('token bucket: burst, refill by elapsed time, never above burst', () => {
  let b = take(undefined, 0, 10, 2);
  assert.equal(b.allowed, true);
  b = take(b.bucket, 0, 10, 2);
  assert.equal(b.allowed, true);
  b = take(b.bucket, 0, 10, 2);
  assert.equal(b.allowed, false);
  b = take(b.bucket, 100, 10, 2);
  assert.equal(b.allowed, true);
  b = take(b.bucket, 1_000_000, 10, 2);
  assert.ok(b.bucket.tokens <= 1);
});
