import { verifyRtcJoin, type TokenRejectionReason } from '@reeltime/token';
import type { ChannelApp } from './apps.ts';
import { ChannelError, type ChannelErrorCode } from './errors.ts';

export interface JoinRequest {
  readonly app: ChannelApp;
  readonly token: string | undefined;
  readonly cname: string;
  readonly uid: number;
  /** WHIP needs the publish privileges; WHEP and membership reads only join. */
  readonly publish: boolean;
  /** Unix seconds. */
  readonly nowSec: number;
}

export interface JoinGrant {
  /** Unix seconds when the join privilege ends; undefined when the app has no certificate. */
  readonly expiresAt: number | undefined;
}

/** Maps the token library's named reason to our catalogue. */
function codeFor(reason: TokenRejectionReason, message: string, publish: boolean): ChannelErrorCode {
  switch (reason) {
    case 'expired':
      return 'token_expired';
    case 'wrong_channel':
      return 'token_wrong_channel';
    case 'wrong_uid':
      return 'token_wrong_uid';
    case 'wrong_app':
      return 'token_wrong_app';
    case 'missing_privilege':
      return publish && !/join/i.test(message) ? 'token_no_publish' : 'token_invalid';
    default:
      return 'token_invalid';
  }
}

/** Checks an RTC token against a join (and publish) request. Throws ChannelError with the reason. */
export function authorizeJoin(req: JoinRequest): JoinGrant {
  if (req.app.appCertificate === undefined) return { expiresAt: undefined };
  if (!req.token) {
    throw new ChannelError('token_missing', 'an RTC token is required: send "Authorization: Bearer <token>"');
  }
  const result = verifyRtcJoin(req.token, {
    appId: req.app.appId,
    appCertificate: req.app.appCertificate,
    now: req.nowSec,
    channel: req.cname,
    uid: String(req.uid),
    publish: req.publish,
  });
  if (!result.ok) throw new ChannelError(codeFor(result.reason, result.message, req.publish), result.message);
  return { expiresAt: result.expiresAt };
}

/** The bearer token of a request: the Authorization header, else a `token` query parameter (EventSource, links). */
export function bearerToken(authorization: string | undefined, queryToken: unknown): string | undefined {
  if (authorization) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (m) return m[1];
  }
  return typeof queryToken === 'string' && queryToken !== '' ? queryToken : undefined;
}
