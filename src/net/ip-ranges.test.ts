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
    ['100.64.0.1', /carrier-grade/],
    ['100.127.255.255', /carrier-grade/],
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
