// Token verification (docs/token.md, Format: "Reading and checking", steps 7-9): authenticity, expiry, then what the token allows.
import { SIGNATURE_BYTES } from './format.ts';
import { parseToken, type ParsedToken } from './parse.ts';
import { reject, type TokenRejection } from './result.ts';
import { privilegeName, RtcPrivilege, type TokenService } from './services.ts';
import { HEX32, sign, signatureMatches } from './signing.ts';

export type TokenCheck =
  | {
      readonly ok: true;
      readonly token: ParsedToken;
      /** Unix seconds when what was checked stops being valid (exclusive). */
      readonly expiresAt: number;
    }
  | TokenRejection;

export interface VerifyContext {
  /** The app the token must belong to (compared case-insensitively: it is a hex identifier). */
  readonly appId: string;
  readonly appCertificate: string;
  /** Unix seconds. */
  readonly now: number;
}

/** Recomputes the HMAC over the original signed bytes and compares in constant time. */
export function verifySignature(parsed: ParsedToken, appCertificate: string): boolean {
  if (typeof appCertificate !== 'string' || !HEX32.test(appCertificate) || !HEX32.test(parsed.appId)) return false;
  if (parsed.signature.length !== SIGNATURE_BYTES) return false;
  return signatureMatches(sign(appCertificate, parsed.issueTs, parsed.salt, parsed.signedBytes), parsed.signature);
}

/** Parse, app, signature and token-level expiry: what every check shares. */
export function authenticateToken(token: string, ctx: VerifyContext): { readonly ok: true; readonly token: ParsedToken } | TokenRejection {
  const parsed = parseToken(token);
  if (!parsed.ok) return parsed;
  const t = parsed.token;
  if (typeof ctx.appId !== 'string' || t.appId.toLowerCase() !== ctx.appId.toLowerCase()) {
    // The token's app id is unauthenticated text: echo it only when it has the expected shape.
    const theirs = HEX32.test(t.appId) ? `app ${t.appId}` : 'an invalid app id';
    return reject('wrong_app', `token belongs to ${theirs}, not to the expected app`);
  }
  if (!verifySignature(t, ctx.appCertificate)) return reject('bad_signature', 'token signature does not match the app certificate');
  const until = t.issueTs + t.expire;
  if (!(ctx.now < until)) return reject('expired', `token expired at ${until} (now ${ctx.now})`);
  return parsed;
}

/** Token valid iff now < issueTs + expire; a privilege iff now < issueTs + min(expire, value). */
function checkPrivileges(t: ParsedToken, s: TokenService, ids: readonly number[], now: number): TokenCheck {
  let deadline = t.issueTs + t.expire;
  for (const id of ids) {
    const value = s.privileges.get(id);
    const name = privilegeName(s.type, id);
    if (value === undefined) return reject('missing_privilege', `${s.name} service has no ${name} privilege`);
    const until = t.issueTs + Math.min(t.expire, value);
    if (!(now < until)) return reject('expired', `${s.name} privilege ${name} expired at ${until} (now ${now})`);
    deadline = Math.min(deadline, until);
  }
  return { ok: true, token: t, expiresAt: deadline };
}

/** Several records of one type may match: the one that stays valid longest wins, else the first failure. */
function bestOf(t: ParsedToken, candidates: readonly TokenService[], ids: readonly number[], now: number): TokenCheck {
  let best: TokenCheck | undefined;
  let firstFailure: TokenCheck | undefined;
  for (const s of candidates) {
    const c = checkPrivileges(t, s, ids, now);
    if (c.ok) {
      if (!best || (best.ok && c.expiresAt > best.expiresAt)) best = c;
    } else firstFailure ??= c;
  }
  return best ?? firstFailure!;
}

/** The chat spec's "maximum validity 24 hours", for app and user tokens alike (counted from the issue time). */
export const CHAT_TOKEN_MAX_VALIDITY_SECONDS = 86400;

/** A passed chat check whose validity (issue to expiry) exceeds the spec's maximum is refused, naming the rule. */
function withinChatMaximum(check: TokenCheck): TokenCheck {
  if (!check.ok) return check;
  const validity = check.expiresAt - check.token.issueTs;
  if (validity <= CHAT_TOKEN_MAX_VALIDITY_SECONDS) return check;
  return reject(
    'validity_too_long',
    `chat token is valid for ${validity} s, more than the maximum of ${CHAT_TOKEN_MAX_VALIDITY_SECONDS} s (24 hours)`,
  );
}

const JOIN = [RtcPrivilege.JOIN_CHANNEL] as const;
const JOIN_AND_PUBLISH = [
  RtcPrivilege.JOIN_CHANNEL,
  RtcPrivilege.PUBLISH_AUDIO_STREAM,
  RtcPrivilege.PUBLISH_VIDEO_STREAM,
  RtcPrivilege.PUBLISH_DATA_STREAM,
] as const;

/** RTC join (and publish, when asked): channel matches, uid is '' (any) or equal, join (+ all three publish) privileges. */
export function verifyRtcJoin(
  token: string,
  ctx: VerifyContext & { readonly channel: string; readonly uid: string; readonly publish?: boolean },
): TokenCheck {
  const auth = authenticateToken(token, ctx);
  if (!auth.ok) return auth;
  const t = auth.token;
  const rtc = t.services.filter((s) => s.type === 1);
  if (rtc.length === 0) return reject('missing_service', 'token has no RTC service');
  const inChannel = rtc.filter((s) => s.channelName === ctx.channel);
  if (inChannel.length === 0) return reject('wrong_channel', `token is not for channel "${ctx.channel}"`);
  const forUid = inChannel.filter((s) => s.uid === '' || s.uid === ctx.uid);
  if (forUid.length === 0) return reject('wrong_uid', `token is not for uid "${ctx.uid}"`);
  return bestOf(t, forUid, ctx.publish ? JOIN_AND_PUBLISH : JOIN, ctx.now);
}

/** Chat RESTful calls: a Chat service holding the app privilege. */
export function verifyChatApp(token: string, ctx: VerifyContext): TokenCheck {
  const auth = authenticateToken(token, ctx);
  if (!auth.ok) return auth;
  const chat = auth.token.services.filter((s) => s.type === 5);
  if (chat.length === 0) return reject('missing_service', 'token has no chat service');
  return withinChatMaximum(bestOf(auth.token, chat, [2], ctx.now));
}

/** Chat SDK login: a Chat service for this user UUID holding the user privilege. */
export function verifyChatUser(token: string, ctx: VerifyContext & { readonly uuid: string }): TokenCheck {
  const auth = authenticateToken(token, ctx);
  if (!auth.ok) return auth;
  const chat = auth.token.services.filter((s) => s.type === 5);
  if (chat.length === 0) return reject('missing_service', 'token has no chat service');
  const mine = chat.filter((s) => s.userId === ctx.uuid);
  if (mine.length === 0) return reject('wrong_user', `token is not for chat user "${ctx.uuid}"`);
  return withinChatMaximum(bestOf(auth.token, mine, [1], ctx.now));
}

/** RTM login: an RTM (type 2) service for this user id holding the login privilege. */
export function verifyRtm(token: string, ctx: VerifyContext & { readonly userId: string }): TokenCheck {
  const auth = authenticateToken(token, ctx);
  if (!auth.ok) return auth;
  const rtm = auth.token.services.filter((s) => s.type === 2);
  if (rtm.length === 0) return reject('missing_service', 'token has no RTM service');
  const mine = rtm.filter((s) => s.userId === ctx.userId);
  if (mine.length === 0) return reject('wrong_user', `token is not for RTM user "${ctx.userId}"`);
  return bestOf(auth.token, mine, [1], ctx.now);
}
