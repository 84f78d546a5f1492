import { createHash, timingSafeEqual } from 'node:crypto';
import type { RecordingCustomer } from '../config.ts';
import { RecordingApiError } from '../errors.ts';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Compares in constant time whatever the lengths (both sides are hashed first). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export interface Authenticator {
  /** The customer of a valid header; throws 401 `Unauthorized` (missing) or `Invalid authentication credentials`. */
  customer(header: string | undefined): RecordingCustomer;
  /** 400 `appid is invalid` for an app nobody may use; 401 when this customer may not use it. */
  checkApp(customer: RecordingCustomer, appId: string): void;
}

/** HTTP Basic authentication of the recording API against the configured customers. */
export function createAuthenticator(customers: readonly RecordingCustomer[], appIds: readonly string[]): Authenticator {
  const known = new Set(appIds);
  // Configured credentials are hashed once; each request hashes only its own id and secret.
  const hashed = customers.map((c) => ({ customer: c, id: digest(c.id), secret: digest(c.secret) }));
  return {
    customer(header) {
      if (header === undefined || header === '') throw new RecordingApiError('unauthorized');
      const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
      if (!m) throw new RecordingApiError('invalidCredentials');
      const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new RecordingApiError('invalidCredentials');
      const id = digest(decoded.slice(0, colon));
      const secret = digest(decoded.slice(colon + 1));
      let found: RecordingCustomer | undefined;
      // Every customer is compared, both fields each time, so timing reveals neither which id exists nor the secret.
      for (const c of hashed) {
        const idOk = timingSafeEqual(c.id, id);
        const secretOk = timingSafeEqual(c.secret, secret);
        if (idOk && secretOk && !found) found = c.customer;
      }
      if (!found) throw new RecordingApiError('invalidCredentials');
      return found;
    },
    checkApp(customer, appId) {
      if (!known.has(appId)) throw new RecordingApiError('invalidAppId');
      if (!customer.appIds.includes(appId)) throw new RecordingApiError('invalidCredentials');
    },
  };
}
