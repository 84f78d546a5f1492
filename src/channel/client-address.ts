import { BlockList, isIP } from 'node:net';

/**
 * Who a request comes from, for the per-address caps and the token-expiry rule (docs/channel.md, "Caps").
 * A TCP peer in the trusted ranges (the deployment's own processes: loopback and cluster peers by default) is
 * trusted, unless the request carries a proxy header: then a proxy on a trusted address relayed it, and the
 * client is the address that proxy names. Any other peer is itself the client; its proxy headers are ignored
 * (anyone can write them).
 */
export interface RequestClient {
  /** The counting key of the client's address (an IPv6 client counts by its /64); undefined when trusted. */
  readonly address: string | undefined;
  readonly trusted: boolean;
}

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** A matcher of address ranges (`127.0.0.0/8`, `::1`, `10.0.0.5`). Throws on an entry that is not one. */
export function addressRanges(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    const r = parseRange(e);
    if (!r) throw new Error(`"${e}" is not an IP address or range`);
    list.addSubnet(r.address, r.bits, r.family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** `address` or `address/bits`, IPv4 or IPv6. */
export function parseRange(entry: string): { address: string; bits: number; family: 4 | 6 } | undefined {
  const [address = '', bitsText, ...rest] = entry.trim().split('/');
  const ip = isIP(address);
  if (rest.length > 0 || ip === 0) return undefined;
  const family = ip === 4 ? 4 : 6;
  const max = family === 4 ? 32 : 128;
  if (bitsText === undefined) return { address, bits: max, family };
  if (!/^[0-9]{1,3}$/.test(bitsText) || Number(bitsText) > max) return undefined;
  return { address, bits: Number(bitsText), family };
}

export function requestClient(peer: string | undefined, headers: HeaderBag, trusted: BlockList): RequestClient {
  const direct = unmap(peer ?? '');
  if (!isTrusted(direct, trusted)) return { address: addressKey(direct), trusted: false };
  const relayed = proxiedClient(headers);
  if (relayed === undefined) return { address: undefined, trusted: true };
  return { address: addressKey(relayed), trusted: false };
}

function isTrusted(address: string, list: BlockList): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);

/** The client a proxy names (the last hop it appended), or undefined when the request carries no proxy header. */
function proxiedClient(headers: HeaderBag): string | undefined {
  const xff = first(headers['x-forwarded-for']);
  const realIp = first(headers['x-real-ip']);
  const forwarded = first(headers.forwarded);
  if (xff === undefined && realIp === undefined && forwarded === undefined) return undefined;
  if (xff !== undefined) return xff.split(',').pop()!.trim();
  if (realIp !== undefined) return realIp.trim();
  const fors = [...forwarded!.matchAll(/for="?\[?([^\]";,]+)/gi)].map((m) => m[1]!);
  return fors.pop() ?? forwarded!;
}

/** `::ffff:1.2.3.4` is the IPv4 client 1.2.3.4. */
function unmap(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

/** An IPv4 address as is; an IPv6 one by its /64 (one subscriber's allocation); anything else verbatim. */
function addressKey(raw: string): string {
  const address = unmap(raw.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
