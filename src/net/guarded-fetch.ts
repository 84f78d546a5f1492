import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { resolveOutbound, type OutboundPolicy } from './check-url.ts';

export interface GuardedFetchInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** Aborts the request (callers drive timeouts through their Clock). */
  readonly signal?: AbortSignal;
  /** Redirects to follow for GET/HEAD, each target checked again; default 0 (a 3xx is returned as is). */
  readonly maxRedirects?: number;
  /** PEM certificate(s) to trust for https instead of the system roots (private receivers, tests). */
  readonly ca?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([204, 205, 304]);

/** Every connection goes to the address the guard checked, whatever a later DNS answer would say. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

function toHeaders(raw: http.IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (Array.isArray(v)) for (const x of v) h.append(k, x);
    else if (v !== undefined) h.set(k, v);
  }
  return h;
}

async function once(target: URL, address: string, family: 4 | 6, init: GuardedFetchInit): Promise<Response> {
  const headers: Record<string, string> = { ...init.headers };
  const hasAuth = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
  if ((target.username || target.password) && !hasAuth) {
    // Credentials in the URL become Basic auth, as browsers and fetch would do, and never go into the path.
    const user = decodeURIComponent(target.username);
    const pass = decodeURIComponent(target.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : init.body;
  if (body) headers['content-length'] = String(body.byteLength);
  const mod = target.protocol === 'https:' ? https : http;
  return await new Promise<Response>((resolve, reject) => {
    const req = mod.request(
      {
        protocol: target.protocol,
        hostname: target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname,
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? 'GET',
        headers,
        lookup: pinnedLookup(address, family),
        agent: false,
        ...(init.ca && target.protocol === 'https:' ? { ca: init.ca } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          reject(new Error(`unexpected HTTP status ${status}`));
          return;
        }
        const empty = NO_BODY.has(status) || (init.method ?? 'GET').toUpperCase() === 'HEAD';
        if (empty) res.resume();
        const stream = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: toHeaders(res.headers) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * fetch() for URLs that users supply (webhooks, web pages, background images): the URL passes checkOutboundUrl's
 * rules and the socket connects to the address that was checked. Redirects are only followed when asked, and each
 * hop is checked again.
 */
export async function guardedFetch(url: string | URL, init: GuardedFetchInit, policy: OutboundPolicy): Promise<Response> {
  let target = await resolveOutbound(url, policy);
  let left = init.maxRedirects ?? 0;
  const method = (init.method ?? 'GET').toUpperCase();
  for (;;) {
    const res = await once(target.url, target.address, target.family, init);
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || !location || left <= 0 || (method !== 'GET' && method !== 'HEAD')) return res;
    await res.body?.cancel();
    left--;
    target = await resolveOutbound(new URL(location, target.url), policy);
  }
}
