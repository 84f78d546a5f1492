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
  return {
    customer(header) {
      if (header === undefined || header === '') throw new RecordingApiError('unauthorized');
      const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
      if (!m) throw new RecordingApiError('invalidCredentials');
      const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new RecordingApiError('invalidCredentials');
      const id = decoded.slice(0, colon);
      const secret = decoded.slice(colon + 1);
      let found: RecordingCustomer | undefined;
      // Every customer is compared, so the time taken does not reveal which id exists.
      for (const c of customers) {
        const ok = safeEqual(c.id, id) && safeEqual(c.secret, secret);
        if (ok && !found) found = c;
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
