import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyIp, parseIPv6 } from './ip-ranges.ts';

test('parseIPv6 expands every text form to eight groups', () => {
  const cases: [string, number[]][] = [
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['fe80::1:2', [0xfe80, 0, 0, 0, 0, 0, 1, 2]],
    ['2001:db8:0:0:0:0:0:1', [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['64:ff9b::10.1.2.3', [0x64, 0xff9b, 0, 0, 0, 0, 0x0a01, 0x0203]],
    ['1:2:3:4:5:6:1.2.3.4', [1, 2, 3, 4, 5, 6, 0x0102, 0x0304]],
  ];
  for (const [text, groups] of cases) assert.deepEqual(parseIPv6(text), groups, text);
});

test('classifyIp names non-public ranges and passes public addresses', () => {
  const blocked: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['0.0.0.0', /this network/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /metadata/],
    ['100.64.0.1', /shared address space/],
    ['100.127.255.255', /shared address space/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
    ['::ffff:7f00:1', /IPv4-mapped loopback/],
    ['0:0:0:0:0:ffff:a00:1', /IPv4-mapped private/],
    ['::ffff:169.254.169.254', /IPv4-mapped link-local/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['64:ff9b::127.0.0.1', /NAT64 loopback/],
    ['2002:7f00:1::', /6to4 loopback/],
    ['2001:0:4136:e378::1', /Teredo/],
    ['[::1]', /loopback/],
  ];
  for (const [ip, why] of blocked) assert.match(classifyIp(ip) ?? 'public', why, ip);
  const open = ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '11.0.0.1',
    '169.253.1.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1',
    'fbff::1', '2a00::1'];
  for (const ip of open) assert.equal(classifyIp(ip), null, ip);
  assert.throws(() => classifyIp('example.com'), /not an IP/);
});

/**
 * One row per IANA special-purpose range (iana-ipv4-special-registry, iana-ipv6-special-registry, RFC 6890 and
 * updates) and multicast: a sample address and the verdict (the range named, or null for globally reachable).
 */
test('classifyIp follows the IANA special-purpose registries, one row per range', () => {
  const table: [range: string, sample: string, verdict: RegExp | null][] = [
    ['0.0.0.0/8', '0.1.2.3', /this network/],
    ['10.0.0.0/8', '10.255.0.1', /private/],
    ['100.64.0.0/10 shared', '100.100.1.1', /shared address space/],
    ['127.0.0.0/8', '127.0.0.2', /loopback/],
    ['169.254.0.0/16', '169.254.1.1', /link-local/],
    ['172.16.0.0/12', '172.20.0.1', /private/],
    ['192.0.0.0/24 IETF', '192.0.0.1', /IETF protocol assignments/],
    ['192.0.0.0/29 service continuity', '192.0.0.6', /IETF protocol assignments/],
    ['192.0.0.8/32 dummy', '192.0.0.8', /IETF protocol assignments/],
    ['192.0.0.9/32 PCP anycast (global)', '192.0.0.9', null],
    ['192.0.0.10/32 TURN anycast (global)', '192.0.0.10', null],
    ['192.0.0.170/32 NAT64 discovery', '192.0.0.170', /IETF protocol assignments/],
    ['192.0.2.0/24 TEST-NET-1', '192.0.2.10', /documentation TEST-NET-1/],
    ['192.31.196.0/24 AS112 (global)', '192.31.196.1', null],
    ['192.52.193.0/24 AMT (global)', '192.52.193.1', null],
    ['192.88.99.0/24 6to4 relay', '192.88.99.1', /6to4 relay/],
    ['192.168.0.0/16', '192.168.100.1', /private/],
    ['192.175.48.0/24 AS112 (global)', '192.175.48.1', null],
    ['198.18.0.0/15 benchmarking', '198.19.255.1', /benchmarking/],
    ['198.51.100.0/24 TEST-NET-2', '198.51.100.7', /documentation TEST-NET-2/],
    ['203.0.113.0/24 TEST-NET-3', '203.0.113.200', /documentation TEST-NET-3/],
    ['224.0.0.0/4 multicast', '239.255.255.250', /multicast/],
    ['240.0.0.0/4 reserved', '240.0.0.1', /reserved/],
    ['255.255.255.255/32 broadcast', '255.255.255.255', /limited broadcast/],
    ['public IPv4', '93.184.216.34', null],
    ['::/128', '::', /unspecified/],
    ['::1/128', '::1', /loopback/],
    ['::ffff:0:0/96 mapped private', '::ffff:192.168.0.1', /IPv4-mapped private/],
    ['::ffff:0:0/96 mapped documentation', '::ffff:203.0.113.1', /IPv4-mapped documentation/],
    ['::ffff:0:0/96 mapped public', '::ffff:93.184.216.34', null],
    ['::/96 IPv4-compatible', '::10.0.0.1', /IPv4-compatible/],
    ['64:ff9b::/96 NAT64 of loopback', '64:ff9b::7f00:1', /NAT64 loopback/],
    ['64:ff9b::/96 NAT64 of public', '64:ff9b::5db8:d822', null],
    ['64:ff9b:1::/48 local-use translation', '64:ff9b:1::a00:1', /local-use IPv4\/IPv6 translation/],
    ['100::/64 discard-only', '100::1', /discard-only/],
    ['100:0:0:1::/64 dummy', '100:0:0:1::1', /dummy prefix/],
    ['2001::/23 IETF', '2001:100::1', /IETF protocol assignments/],
    ['2001::/32 Teredo', '2001:0:4136:e378::1', /Teredo/],
    ['2001:1::1/128 PCP anycast (global)', '2001:1::1', null],
    ['2001:1::2/128 TURN anycast (global)', '2001:1::2', null],
    ['2001:1::3/128 DNS-SD anycast (global)', '2001:1::3', null],
    ['2001:2::/48 benchmarking', '2001:2::5', /benchmarking/],
    ['2001:3::/32 AMT (global)', '2001:3::1', null],
    ['2001:4:112::/48 AS112-v6 (global)', '2001:4:112::1', null],
    ['2001:20::/28 ORCHIDv2', '2001:2a::1', /ORCHIDv2/],
    ['2001:30::/28 DRIP DETs', '2001:30::1', /not routable/],
    ['2001:db8::/32 documentation', '2001:db8:85a3::8a2e:370:7334', /documentation/],
    ['2002::/16 6to4 of private', '2002:c0a8:101::1', /6to4 private/],
    ['2002::/16 6to4 of documentation', '2002:c000:204::1', /6to4 documentation/],
    ['2002::/16 6to4 of public', '2002:5db8:d822::1', null],
    ['2620:4f:8000::/48 AS112 (global)', '2620:4f:8000::1', null],
    ['3fff::/20 documentation', '3fff:fff::1', /documentation/],
    ['5f00::/16 SRv6 SIDs', '5f00:1::1', /segment routing/],
    ['fc00::/7 unique-local', 'fdff::1', /unique-local/],
    ['fe80::/10 link-local', 'fe80::abcd', /link-local/],
    ['fec0::/10 site-local', 'fec0::1', /site-local/],
    ['ff00::/8 multicast', 'ff05::2', /multicast/],
    ['public IPv6', '2a00:1450:4001::1', null],
  ];
  for (const [range, sample, verdict] of table) {
    const got = classifyIp(sample);
    if (verdict === null) assert.equal(got, null, `${range}: ${sample} is globally reachable`);
    else assert.match(got ?? 'public', verdict, `${range}: ${sample}`);
  }
});
