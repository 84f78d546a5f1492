import { verifyChatApp, verifyChatUser, type TokenCheck, type TokenRejectionReason } from '@reeltime/token';
import { chatErrors, ChatRestError } from './errors.ts';

/** The app credentials behind one `org#app` app key. */
export interface ChatApp {
  readonly org: string;
  readonly app: string;
  readonly appId: string;
  readonly appCertificate: string;
  /** Stable UUID reported as `application` in envelopes. */
  readonly applicationUuid: string;
}

function rejection(reason: TokenRejectionReason): ChatRestError {
  switch (reason) {
    case 'expired':
      return chatErrors.tokenExpired();
    case 'validity_too_long':
      return chatErrors.tokenTooLong();
    case 'bad_signature':
      return chatErrors.tokenNotIssuedHere();
    case 'malformed':
    case 'wrong_version':
    case 'unknown_service':
      return chatErrors.tokenCorrupt();
    default:
      // Another app's token, or a token without the chat app privilege (e.g. a user token).
      return chatErrors.tokenIllegal();
  }
}

/** The token of an `Authorization: Bearer <token>` header; undefined when there is none. */
function bearer(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** The bearer token checked by `verify`: the passed check, or the error to send (missing, expired, foreign...). */
function checkBearer(
  header: string | undefined,
  registering: boolean,
  verify: (token: string) => TokenCheck,
): Extract<TokenCheck, { ok: true }> | ChatRestError {
  const token = bearer(header);
  if (!token) return chatErrors.tokenMissing(registering);
  const check = verify(token);
  return check.ok ? check : rejection(check.reason);
}

/** What every chat token check needs of the app: its id and certificate, and the time in seconds. */
const verifying = (app: ChatApp, nowMs: number) => ({
  appId: app.appId,
  appCertificate: app.appCertificate,
  now: Math.floor(nowMs / 1000),
});

/**
 * Checks `Authorization: Bearer <app token>`: signature with the app's certificate, expiry, the chat app
 * privilege and the app id of the org/app in the URL. Returns the error to send, or undefined when allowed.
 */
export function checkAppBearer(
  header: string | undefined,
  app: ChatApp,
  nowMs: number,
  registering: boolean,
): ChatRestError | undefined {
  const r = checkBearer(header, registering, (token) => verifyChatApp(token, verifying(app, nowMs)));
  return r instanceof ChatRestError ? r : undefined;
}

/**
 * Checks `Authorization: Bearer <user token>` for the user with this UUID (the Web SDK asks for its new token's
 * expiry this way). Returns the check, or the error to send.
 */
export function checkUserBearer(
  header: string | undefined,
  app: ChatApp,
  uuid: string,
  nowMs: number,
): Extract<TokenCheck, { ok: true }> | ChatRestError {
  return checkBearer(header, false, (token) => verifyChatUser(token, { ...verifying(app, nowMs), uuid }));
}
