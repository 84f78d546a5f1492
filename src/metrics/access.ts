import { isIP } from 'node:net';
import { safeEqual } from '../http/index.ts';

/** Who may read /metrics: holders of the configured bearer token, or else only callers on this host. */
export type MetricsAccess = { readonly kind: 'token'; readonly token: string } | { readonly kind: 'loopback' };

export type AccessDecision = { readonly ok: true } | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

export interface MetricsRequest {
  /** The TCP peer (never a forwarded header). */
  readonly remoteAddress: string | undefined;
  readonly authorization: string | undefined;
  /** Whether the request carries any header a proxy adds (`PROXY_HEADERS`): it came through a proxy. */
  readonly forwarded: boolean;
}

/**
 * Headers that proxies and CDNs add to say whom they relay: any of them on a request from loopback means a proxy
 * on this host passed it on, for a client that could be anyone.
 */
export const PROXY_HEADERS: readonly string[] = Object.freeze([
  'forwarded',
  'via',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'x-original-forwarded-for',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-appengine-user-ip',
  'x-azure-clientip',
]);

/** Whether `headers` (lower-case names, as Node gives them) carry a proxy's header: the above or any `X-Forwarded-*`. */
export function hasProxyHeader(headers: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(headers).some((h) => h.startsWith('x-forwarded-') || PROXY_HEADERS.includes(h));
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(a) === 4) return a.startsWith('127.');
  return a === '::1';
}

/**
 * Pure: whether a scrape is allowed. With a token, any address with `Authorization: Bearer <token>` (401 without
 * one, 403 with a wrong one). Without, loopback peers only; a request relayed by a proxy on this host is refused
 * too, since the proxy's clients could be anyone.
 */
export function decideMetricsAccess(access: MetricsAccess, req: MetricsRequest): AccessDecision {
  if (access.kind === 'token') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '');
    if (!m) return { ok: false, status: 401, reason: 'send the metrics token as Authorization: Bearer <token>' };
    if (!safeEqual(m[1]!, access.token)) return { ok: false, status: 403, reason: 'the metrics token does not match' };
    return { ok: true };
  }
  if (!isLoopback(req.remoteAddress) || req.forwarded) {
    return { ok: false, status: 403, reason: 'metrics are served to loopback callers only; set REELTIME_METRICS_TOKEN to scrape from elsewhere' };
  }
  return { ok: true };
}
