import type { FastifyRequest } from 'fastify';
import { basicLogin, safeEqual, type LoginThrottle } from '../../http/index.ts';
import type { ChannelApp } from '../apps.ts';
import { authorizeJoin, bearerToken } from '../auth.ts';
import { ChannelError } from '../errors.ts';
import { parseUid } from './params.ts';

/**
 * The customer whose Basic credentials the channel's reads and its viewer tokens accept, and the process's count of
 * failed logins, which the recording API and the bucket share (security.md, "Failed logins").
 */
export interface ChannelCustomer {
  readonly id: string;
  readonly secret: string;
  readonly logins: Pick<LoginThrottle, 'refusal' | 'failed'>;
}

/**
 * True when the request carries the customer's Basic credentials; throws when it carries other Basic ones (counted
 * as a failed login), and once this address or id failed too often, whatever it carries (429, `Retry-After`).
 */
export function isCustomer(req: FastifyRequest, customer: ChannelCustomer): boolean {
  const header = req.headers.authorization;
  if (!header || !/^Basic\s/i.test(header)) return false;
  const match = (c: { readonly id: string; readonly secret: string }) => (safeEqual(c.id, customer.id) && safeEqual(c.secret, customer.secret) ? true : undefined);
  const login = basicLogin(match, customer.logins, header, req.socket.remoteAddress);
  if (login.ok) return true;
  if (login.refusal === 'throttled') {
    throw new ChannelError('too_many_failed_logins', 'too many failed logins from this address or for this customer id; retry later', login.retryAfterSeconds);
  }
  throw new ChannelError('unauthorized', 'the Basic credentials are not the customer id and secret');
}

/** A granted read: the token it was granted to (none for the customer or an app without certificate), and when it ends. */
export interface ReadGrant {
  readonly token: string | undefined;
  /** Unix seconds when the token's join privilege ends; undefined when nothing expires. */
  readonly expiresAt: number | undefined;
}

/**
 * Who may read a channel's membership: the recording API's customer (HTTP Basic), or a participant-to-be holding
 * an RTC token for the channel (Bearer header or `token` query, with its `uid` query), or anyone when the app has
 * no certificate.
 */
export function authorizeRead(
  req: FastifyRequest,
  app: ChannelApp,
  cname: string,
  customer: ChannelCustomer,
  nowSec: number,
): ReadGrant {
  const header = req.headers.authorization;
  if (isCustomer(req, customer)) return { token: undefined, expiresAt: undefined };
  if (app.appCertificate === undefined) return { token: undefined, expiresAt: undefined };
  const query = req.query as Record<string, unknown>;
  const token = bearerToken(header, query.token);
  if (!token) {
    throw new ChannelError(
      'token_missing',
      'send the customer credentials (HTTP Basic) or an RTC token for this channel (Bearer, or ?token=&uid=)',
    );
  }
  const grant = authorizeJoin({ app, token, cname, uid: parseUid(query.uid), publish: false, nowSec });
  return { token, expiresAt: grant.expiresAt };
}
