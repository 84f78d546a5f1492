import { credentialMatcher, parseBasic } from '../../http/index.ts';
import type { RecordingCustomer } from '../config.ts';
import { RecordingApiError } from '../errors.ts';

export { safeEqual } from '../../http/index.ts';

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
  const match = credentialMatcher(customers);
  return {
    customer(header) {
      const credentials = parseBasic(header);
      if (credentials === 'missing') throw new RecordingApiError('unauthorized');
      if (credentials === 'malformed') throw new RecordingApiError('invalidCredentials');
      const found = match(credentials);
      if (!found) throw new RecordingApiError('invalidCredentials');
      return found;
    },
    checkApp(customer, appId) {
      if (!known.has(appId)) throw new RecordingApiError('invalidAppId');
      if (!customer.appIds.includes(appId)) throw new RecordingApiError('invalidCredentials');
    },
  };
}
