import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeEnvelope, encodePayload } from './envelope.ts';
import { afterFailure } from './retry.ts';
import { signatureHeaders, verifySignature } from './signature.ts';
import { validateEvent } from './validate.ts';

test('signatures match the documented NCS test vector (HMAC-SHA1 and HMAC-SHA256 of the raw body)', () => {
  const body =
    '{"eventMs":1560408533119,"eventType":10,"noticeId":"4eb720f0-8da7-11e9-a43e-53f411c2761f",' +
    '"notifyMs":1560408533119,"payload":{"a":"1","b":2},"productId":1}';
  assert.deepEqual(signatureHeaders(body, 'secret'), {
    'Agora-Signature': '033c62f40f687675f17f0f41f91a40c71c0f134c',
    'Agora-Signature-V2': '6d3320c60b11101395b7fc8f9068748808a0aa1bfa064438e39d1bc2c7d74d99',
  });
  assert.equal(verifySignature(body, 'secret', { 'agora-signature-v2': '6D3320C60B11101395B7FC8F9068748808A0AA1BFA064438E39D1BC2C7D74D99' }), true);
  assert.equal(verifySignature(body, 'secret', { 'agora-signature': '033c62f40f687675f17f0f41f91a40c71c0f134c' }), true);
  assert.equal(verifySignature(body + ' ', 'secret', { 'agora-signature': '033c62f40f687675f17f0f41f91a40c71c0f134c' }), false);
  assert.equal(verifySignature(body, 'other', { 'agora-signature-v2': '6d33' }), false);
  assert.equal(verifySignature(body, 'secret', {}), false);
});

test('the envelope has the documented fields, order and types', () => {
  const payload = encodePayload(
    { appId: 'a', sid: 's1', cname: 'c', uid: '7', eventType: 31, serviceType: 2,
      details: { status: 0, msgName: 'uploaded', fileList: [{ fileName: 'x.m3u8' }] } },
    4,
    1000,
  );
  const body = encodeEnvelope('n-1', 31, 2000, payload);
  assert.equal(
    body,
    '{"noticeId":"n-1","productId":3,"eventType":31,"notifyMs":2000,"payload":{"cname":"c","uid":"7","sid":"s1",' +
      '"sequence":4,"sendts":1000,"serviceType":2,"details":{"msgName":"uploaded","status":0,"fileList":[{"fileName":"x.m3u8"}]}}}',
  );
  assert.doesNotThrow(() => JSON.parse(body));
});

test('retries: at once, then each configured delay, then give up', () => {
  const delays = [0, 10_000, 60_000];
  assert.deepEqual(afterFailure(1, delays, 100), { kind: 'retry', atMs: 100 });
  assert.deepEqual(afterFailure(2, delays, 100), { kind: 'retry', atMs: 10_100 });
  assert.deepEqual(afterFailure(3, delays, 100), { kind: 'retry', atMs: 60_100 });
  assert.deepEqual(afterFailure(4, delays, 100), { kind: 'give_up' });
  assert.deepEqual(afterFailure(1, [], 100), { kind: 'give_up' });
});

test('events from other modules are checked field by field', () => {
  const good = { appId: 'a', sid: 's', cname: 'c', uid: '1', eventType: 40, serviceType: 1, details: { msgName: 'recorder_started' } };
  validateEvent(good);
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ sid: '' }, /sid must be a non-empty string/],
    [{ appId: 3 }, /appId/],
    [{ eventType: 1.5 }, /eventType must be a non-negative integer/],
    [{ serviceType: -1 }, /serviceType/],
    [{ details: { status: 0 } }, /details\.msgName/],
    [{ details: null }, /details must be an object/],
    [{ details: { msgName: 'x', n: 10n } }, /JSON-serialisable/],
  ];
  for (const [patch, why] of bad) {
    assert.throws(() => validateEvent({ ...good, ...patch } as never), why);
  }
});
