import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumArgs, hostResolverRules } from './browser.ts';
import { resolveCaptureOptions } from './options.ts';

test('host rules: unpinned only 127.0.0.1; pinned, each host to its approved address and nothing else unless opened (IPv6 with brackets as target only)', () => {
  assert.equal(hostResolverRules([]), 'MAP * ~NOTFOUND, EXCLUDE 127.0.0.1');
  assert.equal(hostResolverRules([{ host: 'board.example.com', address: '203.0.113.7' }]), 'MAP board.example.com 203.0.113.7, MAP * ~NOTFOUND');
  assert.equal(hostResolverRules([{ host: '203.0.113.7', address: '203.0.113.7' }]), 'MAP 203.0.113.7 203.0.113.7, MAP * ~NOTFOUND');
  assert.equal(hostResolverRules([{ host: 'v6.example', address: '2001:db8::5' }]), 'MAP v6.example [2001:db8::5], MAP * ~NOTFOUND');
  assert.equal(hostResolverRules([{ host: '[2001:db8::5]', address: '2001:db8::5' }]), 'MAP 2001:db8::5 [2001:db8::5], MAP * ~NOTFOUND');
  // recording.webPageHosts: a CDN the page loads scripts from is pinned too; `*` leaves other names to the system.
  const two = [{ host: 'board.example.com', address: '203.0.113.7' }, { host: 'cdn.example.net', address: '198.51.100.9' }];
  assert.equal(hostResolverRules(two), 'MAP board.example.com 203.0.113.7, MAP cdn.example.net 198.51.100.9, MAP * ~NOTFOUND');
  assert.equal(hostResolverRules(two, true), 'MAP board.example.com 203.0.113.7, MAP cdn.example.net 198.51.100.9');
  const base = { chromiumPath: '/usr/bin/chromium', display: ':1', pulseServer: 'unix:/p', sink: 's', width: 640, height: 360, mobile: false, profileDir: '/tmp/p' };
  const args = chromiumArgs({ ...base, pinnedHosts: [two[0]!], openNetwork: false });
  assert.ok(args.includes('--host-resolver-rules=MAP board.example.com 203.0.113.7, MAP * ~NOTFOUND'), args.join(' '));
  assert.ok(chromiumArgs({ ...base, pinnedHosts: [], openNetwork: false }).includes('--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'));
});

test('a host whose name would change the rules (separators, wildcard) is not pinned', () => {
  const base = { workDir: '/w', width: 640, height: 360 };
  // Both are valid URL hosts (WHATWG forbids neither `,` nor `*`).
  for (const host of ['a,b.example', '*.example', 'a b']) {
    assert.throws(() => resolveCaptureOptions({ ...base, pinnedHosts: [{ host, address: '203.0.113.7' }] }), /cannot be pinned/, host);
  }
  assert.throws(() => resolveCaptureOptions({ ...base, pinnedHosts: [{ host: 'ok.example', address: '1.2.3.4, MAP *' }] }), /IP address/);
  assert.equal(resolveCaptureOptions({ ...base, pinnedHosts: [{ host: 'ok.example', address: '203.0.113.7' }] }).pinnedHosts[0]?.host, 'ok.example');
});
