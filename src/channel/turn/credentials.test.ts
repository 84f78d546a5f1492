// TURN credentials as coturn's use-auth-secret checks them, and the Link header of RFC 9725.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { iceServerLinks, isTurnUrl, turnCredentials } from './index.ts';

const settings = { urls: ['turn:127.0.0.1:3478?transport=udp', 'turn:127.0.0.1:3478?transport=tcp'], secret: 'north-wind-7f3a9c', credentialTtlSeconds: 600 };

test('username is expiry:user, password is base64 HMAC-SHA1 of the username; the token end caps the expiry', () => {
  const c = turnCredentials(settings, { user: '1001', nowSec: 1_800_000_000 });
  assert.equal(c.username, '1800000600:1001');
  // The value coturn computes for this secret and username (HMAC-SHA1 is the REST API draft's and coturn's default).
  assert.equal(c.credential, createHmac('sha1', 'north-wind-7f3a9c').update('1800000600:1001').digest('base64'));
  assert.deepEqual(c.urls, settings.urls);
  assert.equal(turnCredentials(settings, { user: '1001', nowSec: 1_800_000_000, notAfterSec: 1_800_000_100 }).username, '1800000100:1001');
});

test('one Link header per URL, quoted, with credential-type password', () => {
  const links = iceServerLinks({ urls: ['turn:t.example:3478?transport=udp'], username: '5:a"b', credential: 'x\\y' });
  assert.deepEqual(links, ['<turn:t.example:3478?transport=udp>; rel="ice-server"; username="5:a\\"b"; credential="x\\\\y"; credential-type="password"']);
});

test('TURN URLs: turn: or turns:, host, port, transport', () => {
  for (const ok of ['turn:127.0.0.1:3478', 'turns:turn.example.com:5349?transport=tcp', 'turn:[::1]:3478?transport=udp', 'turn:host']) assert.ok(isTurnUrl(ok), ok);
  for (const bad of ['stun:127.0.0.1:3478', 'turn://x:1', 'turn:127.0.0.1:3478?transport=sctp', 'http://x', 'turn:', 'turn:a b']) assert.ok(!isTurnUrl(bad), bad);
});
