import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { OutboundUrlError } from './errors.ts';
import { classifyIp, inCidr, parseCidr } from './ip-ranges.ts';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export interface OutboundPolicy {
  /** False refuses loopback, private, link-local, CGNAT, ULA and similar targets (production default). */
  readonly allowPrivate: boolean;
  /**
   * Targets allowed even when private: origins (`http://10.0.0.5:8080`: that scheme, host and port) or address
   * ranges (`10.0.0.0/16`: any address the host is or resolves to lies in it). The cluster's own nodes
   * (`REELTIME_CLUSTER_PEERS`, docs/deployment.md) come in this way; see `isAllowEntry`.
   */
  readonly allow?: readonly string[];
  /** Name resolution; defaults to the system resolver (every address of the name). Tests may inject one. */
  readonly resolve?: (hostname: string) => Promise<readonly ResolvedAddress[]>;
}

/** A checked URL and the one address the connection must go to (so a second DNS answer can't swap it). */
export interface ResolvedTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

const HINT =
  'private targets are refused (set notify.allowPrivateUrls / REELTIME_ALLOW_PRIVATE_URLS to allow them, or list a node of the cluster in clusterPeers / REELTIME_CLUSTER_PEERS)';

/** An allow entry is an http(s) origin (nothing after the port) or an IP range `address/bits`. */
export function isAllowEntry(entry: string): boolean {
  if (parseCidr(entry)) return true;
  try {
    const u = new URL(entry);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && `${u.origin}` === entry.replace(/\/+$/, '');
  } catch {
    return false;
  }
}

/** Whether the policy's allow list covers this URL reaching these addresses. */
function allowed(policy: OutboundPolicy, url: URL | undefined, addresses: readonly string[]): boolean {
  for (const entry of policy.allow ?? []) {
    const range = parseCidr(entry);
    if (range ? addresses.every((a) => inCidr(a, range)) : url !== undefined && URL.canParse(entry) && new URL(entry).origin === url.origin) return true;
  }
  return false;
}

async function systemResolve(hostname: string): Promise<readonly ResolvedAddress[]> {
  const all = await lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function parse(raw: string | URL): URL {
  if (raw instanceof URL) return new URL(raw.href);
  try {
    return new URL(raw);
  } catch {
    // The raw text may carry credentials, so it is not echoed.
    throw new OutboundUrlError('invalid_url', 'URL is not a valid absolute URL');
  }
}

/**
 * Checks one host (a name or an IP literal, IPv6 with or without brackets) that a connection is about to reach:
 * unless the policy allows private targets, a literal must be public and a name must resolve only to public
 * addresses. Returns the address to connect to (the first one). `url`, when given, lets the policy's origin
 * entries match; range entries match any host. Used for non-HTTP targets too (RTMP, storage endpoints).
 */
export async function resolveOutboundHost(hostname: string, policy: OutboundPolicy, url?: URL): Promise<ResolvedAddress> {
  const host = hostname;
  if (!host) throw new OutboundUrlError('invalid_url', 'URL has no host');
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  const kind = isIP(literal);
  const permits = (addresses: readonly string[]) => policy.allowPrivate || allowed(policy, url, addresses);
  if (kind !== 0) {
    const range = classifyIp(literal);
    if (range && !permits([literal])) {
      throw new OutboundUrlError('blocked_address', `host ${host} is a ${range} address; ${HINT}`);
    }
    return { address: literal, family: kind === 6 ? 6 : 4 };
  }
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch (e) {
    const code = (e as { code?: string }).code ?? (e as Error).message;
    throw new OutboundUrlError('unresolvable', `host "${host}" could not be resolved (${code})`);
  }
  const first = addresses[0];
  if (!first) throw new OutboundUrlError('unresolvable', `host "${host}" resolved to no address`);
  if (!permits(addresses.map((a) => a.address))) {
    for (const a of addresses) {
      const range = classifyIp(a.address);
      if (range) {
        throw new OutboundUrlError('blocked_address', `host "${host}" resolves to ${a.address}, a ${range} address; ${HINT}`);
      }
    }
  }
  return first;
}

/**
 * Parses and checks an outbound URL, resolving its host once. Refuses schemes other than http(s) and, unless the
 * policy allows private targets, any host that is or resolves to a non-public address (every resolved address is
 * checked). The URL parser has already normalised decimal, octal, hex and IPv4-mapped forms, and the connection is
 * made to the returned address, so what was checked is what gets connected to.
 */
export async function resolveOutbound(raw: string | URL, policy: OutboundPolicy): Promise<ResolvedTarget> {
  const url = parse(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundUrlError('scheme', `URL scheme "${url.protocol.replace(/:$/, '')}" is not allowed (use http or https)`);
  }
  try {
    const { address, family } = await resolveOutboundHost(url.hostname, policy, url);
    return { url, address, family };
  } catch (e) {
    // Messages keep their wording for URLs: "URL host …".
    if (e instanceof OutboundUrlError && e.refusal !== 'invalid_url') throw new OutboundUrlError(e.refusal, `URL ${e.message}`);
    throw e;
  }
}

/** Checks an outbound URL (see resolveOutbound); resolves to the parsed URL or throws OutboundUrlError. */
export async function checkOutboundUrl(url: string, policy: OutboundPolicy): Promise<URL> {
  return (await resolveOutbound(url, policy)).url;
}
