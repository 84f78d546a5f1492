import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumArgs, hostResolverRules } from './browser.ts';
import { resolveCaptureOptions } from './options.ts';

test('host rules: unpinned only 127.0.0.1; pinned, the page host to its approved address and nothing else (IPv6 with brackets as target only)', () => {
  assert.equal(hostResolverRules(undefined), 'MAP * ~NOTFOUND, EXCLUDE 127.0.0.1');
  assert.equal(hostResolverRules({ host: 'board.example.com', address: '203.0.113.7' }), 'MAP board.example.com 203.0.113.7, MAP * ~NOTFOUND');
  assert.equal(hostResolverRules({ host: '203.0.113.7', address: '203.0.113.7' }), 'MAP 203.0.113.7 203.0.113.7, MAP * ~NOTFOUND');
  assert.equal(hostResolverRules({ host: 'v6.example', address: '2001:db8::5' }), 'MAP v6.example [2001:db8::5], MAP * ~NOTFOUND');
  assert.equal(hostResolverRules({ host: '[2001:db8::5]', address: '2001:db8::5' }), 'MAP 2001:db8::5 [2001:db8::5], MAP * ~NOTFOUND');
  const args = chromiumArgs({
    chromiumPath: '/usr/bin/chromium', display: ':1', pulseServer: 'unix:/p', sink: 's', width: 640, height: 360, mobile: false,
    profileDir: '/tmp/p', pinnedHost: { host: 'board.example.com', address: '203.0.113.7' },
  });
  assert.ok(args.includes('--host-resolver-rules=MAP board.example.com 203.0.113.7, MAP * ~NOTFOUND'), args.join(' '));
});

test('a host whose name would change the rules (separators, wildcard) is not pinned', () => {
  const base = { workDir: '/w', width: 640, height: 360 };
  // Both are valid URL hosts (WHATWG forbids neither `,` nor `*`).
  for (const host of ['a,b.example', '*.example', 'a b']) {
    assert.throws(() => resolveCaptureOptions({ ...base, pinnedHost: { host, address: '203.0.113.7' } }), /cannot be pinned/, host);
  }
  assert.throws(() => resolveCaptureOptions({ ...base, pinnedHost: { host: 'ok.example', address: '1.2.3.4, MAP *' } }), /IP address/);
  assert.equal(resolveCaptureOptions({ ...base, pinnedHost: { host: 'ok.example', address: '203.0.113.7' } }).pinnedHost?.host, 'ok.example');
});
