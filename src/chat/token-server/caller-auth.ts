import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError, type ConfigSource } from '../../config/index.ts';
import { credentialMatcher, parseBasic } from '../../http/index.ts';

/**
 * Who may ask the token server for tokens (docs/chat.md, "Who may ask for tokens"):
 * - `open`: anyone, as the spec's demonstration server (the development default);
 * - `required`: an app backend with a customer's Basic credentials (app token and any user's token), or an end
 *   client with a signed user assertion from the app's own login (`Authorization: Bearer`, that user's token only).
 */
export type TokenAuthMode = 'open' | 'required';

export interface TokenAuthSettings {
  /** Production is `open` only when `chat.tokenAuth` says so (it defaults to `required` there). */
  readonly mode: TokenAuthMode;
  /** HMAC-SHA256 key of end-client assertions; undefined: only Basic callers are accepted. */
  readonly assertionSecret: string | undefined;
}

export const TOKEN_AUTH_LABEL = 'REELTIME_CHAT_TOKEN_AUTH (chat.tokenAuth)';
export const ASSERTION_SECRET_LABEL = 'REELTIME_CHAT_ASSERTION_SECRET (chat.assertionSecret)';
/** An assertion may not claim to be valid longer than a token can be (24 hours). */
export const MAX_ASSERTION_SECONDS = 86400;
const MIN_SECRET_LENGTH = 32;

/** Logged at start when production serves tokens to anyone (only with `chat.tokenAuth: "open"` set explicitly). */
export const OPEN_TOKEN_AUTH_WARNING =
  'chat.tokenAuth is "open" in production: anyone who reaches this port gets the chat app token and any user\'s token ' +
  '(registering new users); use it only behind a proxy that authenticates callers';

/** `chat.tokenAuth` (default: `open` in development, `required` in production) and `chat.assertionSecret`. */
export function parseTokenAuth(src: ConfigSource, env: 'development' | 'production'): TokenAuthSettings {
  const raw = src.string('chat.tokenAuth', 'REELTIME_CHAT_TOKEN_AUTH');
  if (raw !== undefined && raw !== 'open' && raw !== 'required') {
    throw new ConfigError(TOKEN_AUTH_LABEL, `must be "open" or "required", got "${raw}"`);
  }
  const assertionSecret = src.string('chat.assertionSecret', 'REELTIME_CHAT_ASSERTION_SECRET');
  if (assertionSecret !== undefined && !/^[\x21-\x7e]+$/.test(assertionSecret)) {
    throw new ConfigError(ASSERTION_SECRET_LABEL, 'must be printable characters without spaces');
  }
  if (assertionSecret !== undefined && assertionSecret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(ASSERTION_SECRET_LABEL, `must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  return {
    mode: raw ?? (env === 'production' ? 'required' : 'open'),
    assertionSecret,
  };
}

/**
 * Start-up refusal: `required` with nothing that could ever authenticate (no customer may use the chat app and no
 * assertion secret) would refuse every caller; say so instead of starting a token server nobody can use.
 */
export function checkTokenAuth(auth: TokenAuthSettings, customerCount: number, appId: string): void {
  if (auth.mode !== 'required' || customerCount > 0 || auth.assertionSecret !== undefined) return;
  throw new ConfigError(
    TOKEN_AUTH_LABEL,
    `is "required" (the production default) but no caller can authenticate: no customer may use app ${appId || '(chat.appid empty)'} ` +
      `and ${ASSERTION_SECRET_LABEL} is not set; configure one of them, or set chat.tokenAuth to "open" to serve tokens to anyone`,
  );
}

// ---- end-client assertions: a compact JWT, HS256, claims {sub: user name, exp: Unix seconds} ----

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

const mac = (secret: string, signingInput: string): Buffer => createHmac('sha256', secret).update(signingInput).digest();

/** What an app's login server hands its end client: a JWT (HS256) for `user`, valid until `expSec`. */
export function signUserAssertion(secret: string, user: string, expSec: number): string {
  const payload = Buffer.from(JSON.stringify({ sub: user, exp: expSec })).toString('base64url');
  return `${HEADER}.${payload}.${mac(secret, `${HEADER}.${payload}`).toString('base64url')}`;
}

export type AssertionCheck =
  | { readonly ok: true; readonly user: string }
  | { readonly ok: false; readonly reason: 'malformed' | 'signature' | 'expired' | 'too_long' };

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Checks the signature (in constant time) before reading any claim; only HS256 is accepted. */
export function verifyUserAssertion(secret: string, token: string, nowSec: number): AssertionCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return { ok: false, reason: 'malformed' };
  const [h, p, s] = parts as [string, string, string];
  const given = Buffer.from(s, 'base64url');
  const expected = mac(secret, `${h}.${p}`);
  // The length is public (always 32 for HS256); the bytes are compared in constant time.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  const header = decodeJson(h);
  const claims = decodeJson(p);
  if (header?.alg !== 'HS256' || !claims) return { ok: false, reason: 'malformed' };
  const { sub, exp } = claims;
  if (typeof sub !== 'string' || sub === '' || typeof exp !== 'number' || !Number.isFinite(exp)) {
    return { ok: false, reason: 'malformed' };
  }
  if (exp <= nowSec) return { ok: false, reason: 'expired' };
  if (exp - nowSec > MAX_ASSERTION_SECONDS) return { ok: false, reason: 'too_long' };
  return { ok: true, user: sub };
}

// ---- the decision per request ----

/** A refused request: 401 (no or bad credential) or 403 (an end client asking for what it may not have). */
export interface AuthRefusal {
  readonly status: 401 | 403;
  readonly body: string;
  /** `WWW-Authenticate` value of a 401. */
  readonly challenge?: string;
}

export type AuthDecision = { readonly ok: true } | ({ readonly ok: false } & AuthRefusal);

export interface CallerAuth {
  readonly mode: TokenAuthMode;
  /** May this `Authorization` header have an app token? */
  appToken(header: string | undefined): AuthDecision;
  /** May this `Authorization` header have `name`'s user token (and register `name` when new)? */
  userToken(header: string | undefined, name: string): AuthDecision;
}

const REALM = 'realm="reeltime chat tokens"';
const bearerOf = (header: string | undefined): string | undefined =>
  header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
const ALLOWED: AuthDecision = { ok: true };
const ASSERTION_REASONS = {
  malformed: 'the Bearer assertion is not a well-formed HS256 JWT with "sub" and "exp"',
  signature: 'the Bearer assertion\'s signature does not match',
  expired: 'the Bearer assertion has expired',
  too_long: `the Bearer assertion expires more than ${MAX_ASSERTION_SECONDS} seconds from now`,
} as const;

/**
 * The token server's caller check. `customers` are the Basic credentials allowed for the chat app (the recording
 * API's customers of that app); `nowSec` is the injected clock.
 */
export function createCallerAuth(
  settings: TokenAuthSettings,
  customers: readonly { readonly id: string; readonly secret: string }[],
  nowSec: () => number,
): CallerAuth {
  if (settings.mode === 'open') return { mode: 'open', appToken: () => ALLOWED, userToken: () => ALLOWED };
  const match = credentialMatcher(customers);
  const secret = settings.assertionSecret;
  const userChallenge = secret === undefined ? `Basic ${REALM}` : `Basic ${REALM}, Bearer ${REALM}`;
  const refuse = (body: string, challenge: string): AuthDecision => ({ ok: false, status: 401, body, challenge });

  /** 'customer' for valid Basic credentials, a refusal for bad ones, undefined when the header is not Basic. */
  const basic = (header: string | undefined, challenge: string): 'customer' | AuthDecision | undefined => {
    if (header === undefined || !/^Basic(\s|$)/i.test(header)) return undefined;
    const given = parseBasic(header);
    if (typeof given !== 'object') return refuse('the Basic credentials are malformed', challenge);
    return match(given) ? 'customer' : refuse('the Basic credentials are not those of a customer of this app', challenge);
  };

  return {
    mode: 'required',
    appToken(header) {
      const b = basic(header, `Basic ${REALM}`);
      if (b === 'customer') return ALLOWED;
      if (b) return b;
      const bearer = bearerOf(header);
      // A valid assertion is an authenticated end client that may not have this (403); anything else is no credential.
      if (bearer !== undefined && secret !== undefined && verifyUserAssertion(secret, bearer, nowSec()).ok) {
        return { ok: false, status: 403, body: 'an end client\'s assertion never gets the app token: the app backend asks with the customer\'s Basic credentials' };
      }
      return refuse('authentication required: send the customer\'s Basic credentials', `Basic ${REALM}`);
    },
    userToken(header, name) {
      const b = basic(header, userChallenge);
      if (b === 'customer') return ALLOWED;
      if (b) return b;
      const bearer = bearerOf(header);
      if (bearer === undefined || secret === undefined) {
        const what = secret === undefined ? 'the customer\'s Basic credentials' : 'the customer\'s Basic credentials or a Bearer assertion for this user';
        return refuse(`authentication required: send ${what}`, userChallenge);
      }
      const check = verifyUserAssertion(secret, bearer, nowSec());
      if (!check.ok) return refuse(ASSERTION_REASONS[check.reason], `Bearer ${REALM}, error="invalid_token"`);
      // Exact match: the chat service may tell "Alice" from "alice", so no folding here.
      if (check.user !== name.trim()) return { ok: false, status: 403, body: 'the Bearer assertion is for another user' };
      return ALLOWED;
    },
  };
}
