import { isIPv4, isIPv6 } from 'node:net';

// The IANA special-purpose address registries (RFC 6890 and its updates: iana-ipv4-special-registry,
// iana-ipv6-special-registry), plus multicast: every range whose addresses are not globally reachable is refused
// unless private targets are allowed. They address this host, the operator's own networks, cloud metadata
// services, documentation examples or nothing routable. A `null` label is a registry exception inside a refused
// range that IANA marks globally reachable (anycast services); the first matching row decides.
const V4_RANGES: readonly (readonly [string, number, string | null])[] = [
  ['0.0.0.0', 8, '"this network" (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'private (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'shared address space / carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local / cloud metadata (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'private (172.16.0.0/12)'],
  ['192.0.0.9', 32, null], // Port Control Protocol anycast (RFC 7723): globally reachable
  ['192.0.0.10', 32, null], // TURN anycast (RFC 8155): globally reachable
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation TEST-NET-1 (192.0.2.0/24)'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'private (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation TEST-NET-2 (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation TEST-NET-3 (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  ['255.255.255.255', 32, 'limited broadcast (255.255.255.255/32)'],
  ['240.0.0.0', 4, 'reserved (240.0.0.0/4)'],
];

// IPv6 rows; the IPv4-mapped, NAT64 and 6to4 forms are judged by the IPv4 address inside (classifyV6).
const V6_RANGES: readonly (readonly [string, number, string | null])[] = [
  ['::', 128, 'unspecified (::)'],
  ['::1', 128, 'loopback (::1)'],
  ['::', 96, 'IPv4-compatible (::/96, deprecated)'],
  ['64:ff9b:1::', 48, 'local-use IPv4/IPv6 translation (64:ff9b:1::/48)'],
  ['100::', 64, 'discard-only (100::/64)'],
  ['100:0:0:1::', 64, 'dummy prefix (100:0:0:1::/64)'],
  ['2001:1::1', 128, null], // Port Control Protocol anycast (RFC 7723)
  ['2001:1::2', 128, null], // TURN anycast (RFC 8155)
  ['2001:1::3', 128, null], // DNS-SD service registration anycast (RFC 9665)
  ['2001:3::', 32, null], // AMT (RFC 7450)
  ['2001:4:112::', 48, null], // AS112-v6 (RFC 7535)
  ['2001::', 32, 'Teredo tunnel (2001::/32)'],
  ['2001:2::', 48, 'benchmarking (2001:2::/48)'],
  ['2001:20::', 28, 'ORCHIDv2 identifiers, not routable (2001:20::/28)'],
  ['2001:30::', 28, 'drone remote ID identifiers, not routable (2001:30::/28)'],
  ['2001::', 23, 'IETF protocol assignments (2001::/23)'],
  ['2001:db8::', 32, 'documentation (2001:db8::/32)'],
  ['3fff::', 20, 'documentation (3fff::/20)'],
  ['5f00::', 16, 'segment routing SIDs (5f00::/16)'],
  ['fc00::', 7, 'unique-local (fc00::/7)'],
  ['fe80::', 10, 'link-local (fe80::/10)'],
  ['fec0::', 10, 'site-local (fec0::/10, deprecated)'],
  ['ff00::', 8, 'multicast (ff00::/8)'],
];

function v4ToInt(a: string): number {
  return a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const V4_TABLE = V4_RANGES.map(([base, bits, label]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (v4ToInt(base) & mask) >>> 0, mask, label };
});

function classifyV4Int(n: number): string | null {
  for (const r of V4_TABLE) if (((n & r.mask) >>> 0) === r.net) return r.label;
  return null;
}

const groupsToBig = (g: readonly number[]): bigint => g.reduce((n, x) => (n << 16n) | BigInt(x), 0n);

const V6_TABLE = V6_RANGES.map(([base, bits, label]) => {
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
  return { net: groupsToBig(parseIPv6(base)) & mask, mask, label };
});

/** Eight 16-bit groups of a valid IPv6 text form (with "::" and a trailing dotted IPv4 allowed). */
export function parseIPv6(text: string): number[] {
  let s = text;
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    // Rewrite a trailing dotted IPv4 as two hex groups so one parser handles every form.
    const v4 = v4ToInt(last);
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = s.split('::') as [string, string | undefined];
  const hex = (p: string) => (p === '' ? [] : p.split(':').map((g) => parseInt(g, 16)));
  const left = hex(head);
  const right = hex(rest ?? '');
  const fill = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

function classifyV6(g: readonly number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embeddedV4 = ((g6 << 16) | g7) >>> 0;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::ffff:0:0/96 (IPv4-mapped) and 64:ff9b::/96 (NAT64) reach the IPv4 address inside; 2002::/16 (6to4) embeds
  // one in groups 1-2.
  if (zeroTo(5) && g5 === 0xffff) {
    const inner = classifyV4Int(embeddedV4);
    return inner ? `IPv4-mapped ${inner}` : null;
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    const inner = classifyV4Int(embeddedV4);
    return inner ? `NAT64 ${inner}` : null;
  }
  if (g0 === 0x2002) {
    const inner = classifyV4Int(((g1 << 16) | g2) >>> 0);
    return inner ? `6to4 ${inner}` : null;
  }
  const n = groupsToBig(g);
  for (const r of V6_TABLE) if ((n & r.mask) === r.net) return r.label;
  return null;
}

/**
 * Names the non-public range an IP literal falls in (e.g. "loopback (127.0.0.0/8)"), or null when it is a public
 * address. Throws on text that is not an IP address.
 */
export function classifyIp(address: string): string | null {
  const a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(a)) return classifyV4Int(v4ToInt(a));
  if (isIPv6(a)) {
    if (a.includes('%')) return 'scoped IPv6 address (zone id)';
    return classifyV6(parseIPv6(a));
  }
  throw new TypeError(`not an IP address: ${a}`);
}

/** 128-bit value of an IPv4 (as IPv4-mapped) or IPv6 literal, so one comparison serves both families. */
function toBig(address: string): bigint {
  const a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const groups = isIPv4(a) ? [0, 0, 0, 0, 0, 0xffff, v4ToInt(a) >>> 16, v4ToInt(a) & 0xffff] : parseIPv6(a);
  return groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

/** An `address/bits` range (IPv4 or IPv6); undefined when the text is not one. */
export function parseCidr(text: string): { readonly base: bigint; readonly mask: bigint } | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (!m) return undefined;
  const ip = m[1]!;
  const v4 = isIPv4(ip);
  if (!v4 && !isIPv6(ip)) return undefined;
  const bits = Number(m[2]) + (v4 ? 96 : 0);
  if (bits > 128 || (v4 && Number(m[2]) > 32)) return undefined;
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits);
  return { base: toBig(ip) & mask, mask };
}

/** Whether an IP literal lies in the range (an IPv4 address matches an IPv4 range and its IPv4-mapped form). */
export function inCidr(address: string, range: { readonly base: bigint; readonly mask: bigint }): boolean {
  const a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!isIPv4(a) && !isIPv6(a)) return false;
  return (toBig(a) & range.mask) === range.base;
}
