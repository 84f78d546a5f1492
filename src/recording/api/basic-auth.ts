import { basicLogin, credentialMatcher, LoginThrottle } from '../../http/index.ts';
import type { RecordingCustomer } from '../config.ts';
import { RecordingApiError } from '../errors.ts';

export { safeEqual } from '../../http/index.ts';

export interface Authenticator {
  /**
   * The customer of a valid header; throws 401 `Unauthorized` (missing) or `Invalid authentication credentials`,
   * or 429 with `Retry-After` once `address` or the id has failed too often.
   */
  customer(header: string | undefined, address?: string): RecordingCustomer;
  /** 400 `appid is invalid` for an app nobody may use; 401 when this customer may not use it. */
  checkApp(customer: RecordingCustomer, appId: string): void;
}

const NO_THROTTLE = new LoginThrottle(() => 0, { loginFailuresPerMinutePerAddress: 0, loginFailuresPerMinutePerCustomer: 0 });

/** HTTP Basic authentication of the recording API against the configured customers. */
export function createAuthenticator(
  customers: readonly RecordingCustomer[],
  appIds: readonly string[],
  throttle: LoginThrottle = NO_THROTTLE,
): Authenticator {
  const known = new Set(appIds);
  // Configured credentials are hashed once; each request hashes only its own id and secret.
  const match = credentialMatcher(customers);
  return {
    customer(header, address) {
      const login = basicLogin(match, throttle, header, address);
      if (login.ok) return login.holder;
      if (login.refusal === 'missing') throw new RecordingApiError('unauthorized');
      if (login.refusal === 'throttled') throw new RecordingApiError('rateLimited', undefined, {}, login.retryAfterSeconds);
      throw new RecordingApiError('invalidCredentials');
    },
    checkApp(customer, appId) {
      if (!known.has(appId)) throw new RecordingApiError('invalidAppId');
      if (!customer.appIds.includes(appId)) throw new RecordingApiError('invalidCredentials');
    },
  };
}
