import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Compares in constant time whatever the lengths (both sides are hashed first). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** What an HTTP Basic `Authorization` header says: nothing, something unreadable, or an id and a secret. */
export type BasicCredentials = 'missing' | 'malformed' | { readonly id: string; readonly secret: string };

export function parseBasic(header: string | undefined): BasicCredentials {
  if (header === undefined || header === '') return 'missing';
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return 'malformed';
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/**
 * Finds the holder of an id and secret among `known` without timing revealing which id exists or how much of the
 * secret matched: every entry is compared, both fields each time, on hashes computed once at construction.
 */
export function credentialMatcher<T extends { readonly id: string; readonly secret: string }>(
  known: readonly T[],
): (credentials: { readonly id: string; readonly secret: string }) => T | undefined {
  const hashed = known.map((k) => ({ entry: k, id: digest(k.id), secret: digest(k.secret) }));
  return ({ id, secret }) => {
    const i = digest(id);
    const s = digest(secret);
    let found: T | undefined;
    for (const h of hashed) {
      const idOk = timingSafeEqual(h.id, i);
      const secretOk = timingSafeEqual(h.secret, s);
      if (idOk && secretOk && !found) found = h.entry;
    }
    return found;
  };
}

/** The outcome of a Basic login: the holder, a refusal (no header, unreadable, wrong), or too many failures. */
export type BasicLogin<T> =
  | { readonly ok: true; readonly holder: T }
  | { readonly ok: false; readonly refusal: 'missing' | 'malformed' | 'invalid' }
  | { readonly ok: false; readonly refusal: 'throttled'; readonly retryAfterSeconds: number };

/**
 * Checks an `Authorization` header against `match` (constant time), counting failures in `throttle` per client
 * address and per customer id: once either has failed too often, every attempt is refused without being checked.
 */
export function basicLogin<T>(
  match: (credentials: { readonly id: string; readonly secret: string }) => T | undefined,
  throttle: { refusal(address: string | undefined, id: string | undefined): number | undefined; failed(address: string | undefined, id: string | undefined): void },
  header: string | undefined,
  address: string | undefined,
): BasicLogin<T> {
  const credentials = parseBasic(header);
  if (credentials === 'missing') return { ok: false, refusal: 'missing' };
  const id = credentials === 'malformed' ? undefined : credentials.id;
  const wait = throttle.refusal(address, id);
  if (wait !== undefined) return { ok: false, refusal: 'throttled', retryAfterSeconds: wait };
  const holder = credentials === 'malformed' ? undefined : match(credentials);
  if (holder !== undefined) return { ok: true, holder };
  throttle.failed(address, id);
  return { ok: false, refusal: credentials === 'malformed' ? 'malformed' : 'invalid' };
}
