import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressRanges, parseRange, requestClient } from './client-address.ts';

test('client address: trusted peers, proxied requests, IPv6 by /64, spoofed headers ignored', () => {
  const trusted = addressRanges(['127.0.0.0/8', '::1', '10.0.0.0/16']);
  const none = {};
  assert.deepEqual(requestClient('127.0.0.1', none, trusted), { address: undefined, trusted: true });
  assert.deepEqual(requestClient('::ffff:127.0.0.2', none, trusted), { address: undefined, trusted: true });
  assert.deepEqual(requestClient('::1', none, trusted), { address: undefined, trusted: true });
  assert.deepEqual(requestClient('10.0.3.4', none, trusted), { address: undefined, trusted: true });
  // A proxy on a trusted address relays a client: the client is the last hop the proxy appended.
  assert.deepEqual(requestClient('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.9' }, trusted), { address: '203.0.113.9', trusted: false });
  assert.deepEqual(requestClient('127.0.0.1', { 'x-real-ip': '198.51.100.7' }, trusted), { address: '198.51.100.7', trusted: false });
  assert.deepEqual(requestClient('127.0.0.1', { forwarded: 'for=192.0.2.1, for="[2001:db8:1:2::5]"' }, trusted), {
    address: '2001:db8:1:2::/64',
    trusted: false,
  });
  // A relayed loopback client is still a relayed one (a same-host proxy would relay anyone).
  assert.deepEqual(requestClient('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }, trusted), { address: '127.0.0.1', trusted: false });
  // An untrusted peer is the client, whatever headers it writes.
  assert.deepEqual(requestClient('203.0.113.5', { 'x-forwarded-for': '127.0.0.1' }, trusted), { address: '203.0.113.5', trusted: false });
  assert.deepEqual(requestClient('::ffff:203.0.113.5', none, trusted), { address: '203.0.113.5', trusted: false });
  assert.deepEqual(requestClient('2001:db8:aa:bb:1::9', none, trusted), { address: '2001:db8:aa:bb::/64', trusted: false });
  assert.deepEqual(requestClient('2001:db8:aa:bb:ffff::1', none, trusted).address, '2001:db8:aa:bb::/64');
  // Nothing trusted: loopback is a client like any other.
  assert.deepEqual(requestClient('127.0.0.1', none, addressRanges([])), { address: '127.0.0.1', trusted: false });
});

test('client address: range entries', () => {
  assert.deepEqual(parseRange('10.0.0.0/8'), { address: '10.0.0.0', bits: 8, family: 4 });
  assert.deepEqual(parseRange('::1'), { address: '::1', bits: 128, family: 6 });
  for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.0/x', '1.2.3.4/8/9', '']) assert.equal(parseRange(bad), undefined, bad);
  assert.throws(() => addressRanges(['nope']), /"nope" is not an IP address or range/);
});
