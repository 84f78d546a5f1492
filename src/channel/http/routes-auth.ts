import type { FastifyRequest } from 'fastify';
import { parseBasic, safeEqual } from '../../http/index.ts';
import type { ChannelApp } from '../apps.ts';
import { authorizeJoin, bearerToken } from '../auth.ts';
import { ChannelError } from '../errors.ts';
import { parseUid } from './params.ts';

/** True when the request carries the customer's Basic credentials; throws when it carries other Basic ones. */
export function isCustomer(req: FastifyRequest, customer: { readonly id: string; readonly secret: string }): boolean {
  const header = req.headers.authorization;
  if (!header || !/^Basic\s/i.test(header)) return false;
  const given = parseBasic(header);
  if (typeof given === 'object' && safeEqual(given.id, customer.id) && safeEqual(given.secret, customer.secret)) return true;
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
  customer: { readonly id: string; readonly secret: string },
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
