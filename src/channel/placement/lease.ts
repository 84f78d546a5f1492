// Pure rules of channel placement (docs/deployment.md, "Channels across nodes").

/** Renewals per lease: a node keeps its channels through two missed renewals. */
export const RENEWALS_PER_LEASE = 3;

export function renewIntervalMs(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / RENEWALS_PER_LEASE));
}

/** The Redis key naming the node that owns a channel; app ids compare case-insensitively like everywhere else. */
export function channelLeaseKey(appId: string, cname: string): string[] {
  return ['channel', appId.toLowerCase(), Buffer.from(cname, 'utf8').toString('base64url')];
}

/**
 * Where a request that reached the wrong node goes: the owner's base URL with the request's own path and query
 * (the query keeps `uid`, `profile` and a `token` given there). Undefined for an owner URL that is not http(s).
 */
export function redirectLocation(ownerBaseUrl: string, requestUrl: string): string | undefined {
  let base: URL;
  try {
    base = new URL(ownerBaseUrl);
  } catch {
    return undefined;
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return undefined;
  const path = requestUrl.startsWith('/') ? requestUrl : `/${requestUrl}`;
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}${path}`;
}

/** A node lets go of a channel once nobody is in it and no join is being negotiated there. */
export function shouldRelease(participants: number, joinsInFlight: number): boolean {
  return participants === 0 && joinsInFlight === 0;
}

/**
 * The URL other nodes send clients to: the configured public URL, or the address actually bound when the
 * configuration left the port to the system (port 0, as tests do).
 */
export function advertisedUrl(publicUrl: string, listenUrl: string): string {
  try {
    return new URL(publicUrl).port === '0' ? listenUrl : publicUrl;
  } catch {
    return listenUrl;
  }
}
