import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkOutboundUrl, isAllowEntry, OutboundUrlError, resolveOutbound, type OutboundPolicy } from './index.ts';

const strict: OutboundPolicy = { allowPrivate: false };
const open: OutboundPolicy = { allowPrivate: true };

async function refusal(url: string, policy: OutboundPolicy): Promise<OutboundUrlError> {
  try {
    await checkOutboundUrl(url, policy);
  } catch (e) {
    assert.ok(e instanceof OutboundUrlError, `${url}: ${String(e)}`);
    return e;
  }
  assert.fail(`${url} was allowed`);
}

test('private targets are refused in every spelling the URL parser accepts', async () => {
  const cases: [string, RegExp][] = [
    ['http://127.0.0.1/hook', /127\.0\.0\.1 is a loopback/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback/], // decimal
    ['http://017700000001/', /127\.0\.0\.1 is a loopback/], // octal
    ['http://0x7f.1/', /127\.0\.0\.1 is a loopback/], // hex, shortened
    ['http://0x7f000001/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://0/', /0\.0\.0\.0 is a "this network"/],
    ['http://0.0.0.0:8080/', /this network/],
    ['http://10.0.0.5/', /private/],
    ['http://172.20.1.1/', /private/],
    ['http://192.168.0.10:9000/x', /private/],
    ['http://169.254.169.254/latest/meta-data/', /metadata/],
    ['http://100.100.100.200/', /carrier-grade/],
    ['http://[::1]/', /\[::1\] is a loopback/],
    ['http://[::]/', /unspecified/],
    ['http://[::ffff:127.0.0.1]/', /IPv4-mapped loopback/],
    ['http://[0:0:0:0:0:ffff:10.0.0.1]/', /IPv4-mapped private/],
    ['http://[fd00::1]/', /unique-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://[64:ff9b::a9fe:a9fe]/', /NAT64 link-local/],
    // userinfo tricks: the host is what follows the last "@", whatever the user part looks like
    ['http://example.com@127.0.0.1/', /127\.0\.0\.1 is a loopback/],
    ['http://8.8.8.8:80@10.0.0.1/', /10\.0\.0\.1 is a private/],
    ['https://user:pass@[::1]:8443/', /loopback/],
  ];
  for (const [url, why] of cases) {
    const e = await refusal(url, strict);
    assert.equal(e.refusal, 'blocked_address', url);
    assert.match(e.message, why, url);
    assert.match(e.message, /REELTIME_ALLOW_PRIVATE_URLS/);
    assert.doesNotMatch(e.message, /pass/, 'credentials never echoed');
  }
});

test('public addresses pass; an "@" before the host does not hide a public one either', async () => {
  for (const url of ['https://8.8.8.8/hook', 'http://127.0.0.1@8.8.8.8/', 'http://[2606:4700::1111]:8080/',
    'http://[::ffff:8.8.8.8]/', 'HTTPS://1.1.1.1/']) {
    const u = await checkOutboundUrl(url, strict);
    assert.ok(u instanceof URL, url);
  }
  const t = await resolveOutbound('http://1.1.1.1\\@127.0.0.1/', strict);
  assert.equal(t.address, '1.1.1.1', 'a backslash ends the authority, as it does for the connection');
});

test('schemes other than http(s) and malformed URLs are refused whatever the policy', async () => {
  for (const url of ['file:///etc/passwd', 'ftp://8.8.8.8/', 'gopher://127.0.0.1:70/', 'data:text/plain,hi',
    'javascript:alert(1)', 'ws://8.8.8.8/']) {
    const e = await refusal(url, open);
    assert.equal(e.refusal, 'scheme', url);
    assert.match(e.message, /scheme ".+" is not allowed/);
  }
  for (const url of ['', 'not a url', '/relative/path', 'http://', 'http://user:secret@[::1']) {
    const e = await refusal(url, open);
    assert.equal(e.refusal, 'invalid_url', url);
    assert.doesNotMatch(e.message, /secret/);
  }
});

test('allowPrivate lets loopback and private targets through', async () => {
  for (const url of ['http://127.0.0.1:9/', 'http://[::1]/', 'http://10.0.0.1/', 'http://2130706433/']) {
    await checkOutboundUrl(url, open);
  }
});

test('hostnames are judged by what they resolve to (localhost through the system resolver)', async () => {
  const e = await refusal('http://localhost:8080/hook', strict);
  assert.equal(e.refusal, 'blocked_address');
  assert.match(e.message, /"localhost" resolves to (127\.0\.0\.1|::1), a loopback/);
  const ok = await resolveOutbound('http://localhost:8080/hook', open);
  assert.match(ok.address, /^(127\.0\.0\.1|::1)$/);

  // One private answer among public ones is enough to refuse (no DNS is used: the resolver is injected).
  const mixed: OutboundPolicy = {
    allowPrivate: false,
    resolve: async () => [{ address: '8.8.8.8', family: 4 }, { address: '10.1.1.1', family: 4 }],
  };
  await assert.rejects(checkOutboundUrl('https://hooks.example/', mixed), /resolves to 10\.1\.1\.1, a private/);
  const none: OutboundPolicy = { allowPrivate: false, resolve: async () => [] };
  await assert.rejects(checkOutboundUrl('https://hooks.example/', none), (err: unknown) => {
    assert.ok(err instanceof OutboundUrlError && err.refusal === 'unresolvable');
    return true;
  });
  const failing: OutboundPolicy = {
    allowPrivate: false,
    resolve: async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    },
  };
  await assert.rejects(checkOutboundUrl('https://hooks.example/', failing), /could not be resolved \(ENOTFOUND\)/);
});

test('an allow list lets listed origins and ranges through when private targets are refused, nothing else', async () => {
  const policy: OutboundPolicy = { allowPrivate: false, allow: ['http://10.0.0.5:8080', '192.168.1.0/24', 'fd00:1::/32'] };
  assert.equal((await checkOutboundUrl('http://10.0.0.5:8080/rtc/v1/x', policy)).host, '10.0.0.5:8080');
  assert.equal((await refusal('http://10.0.0.5:8081/', policy)).refusal, 'blocked_address', 'another port of a listed origin');
  assert.equal((await refusal('https://10.0.0.5:8080/', policy)).refusal, 'blocked_address', 'another scheme of a listed origin');
  assert.ok(await checkOutboundUrl('https://192.168.1.77:9000/', policy));
  assert.equal((await refusal('http://192.168.2.1/', policy)).refusal, 'blocked_address');
  assert.ok(await checkOutboundUrl('http://[fd00:1:2::3]:80/', policy));
  assert.equal((await refusal('http://[fd00:2::3]/', policy)).refusal, 'blocked_address');
  // A name is judged by every address it resolves to: one outside the range refuses it.
  const resolveTo = (addresses: string[]): OutboundPolicy => ({ ...policy, resolve: async () => addresses.map((address) => ({ address, family: 4 as const })) });
  assert.ok(await checkOutboundUrl('http://node-b.internal/', resolveTo(['192.168.1.8'])));
  assert.equal((await refusal('http://node-b.internal/', resolveTo(['192.168.1.8', '10.1.1.1']))).refusal, 'blocked_address');
  assert.equal((await refusal('http://127.0.0.1:8080/', policy)).refusal, 'blocked_address');
  assert.equal(isAllowEntry('http://10.0.0.5:8080'), true);
  assert.equal(isAllowEntry('10.0.0.0/8'), true);
  assert.equal(isAllowEntry('http://10.0.0.5:8080/path'), false);
  assert.equal(isAllowEntry('http://user:pw@10.0.0.5'), false);
  assert.equal(isAllowEntry('10.0.0.0/33'), false);
  assert.equal(isAllowEntry('node-b'), false);
});
