/**
 * The chat gateway's WebSocket protocol: one JSON object per text frame. Shared by the server and the SDK,
 * so it imports nothing.
 */

export type ClientFrame =
  | { readonly type: 'login'; readonly user: string; readonly token: string }
  | { readonly type: 'renew'; readonly reqId: string; readonly token: string }
  | { readonly type: 'send'; readonly reqId: string; readonly to: string; readonly text: string }
  | { readonly type: 'ack'; readonly id: string }
  | { readonly type: 'ping' };

export interface TextMessage {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly text: string;
  /** ms since the epoch, server time. */
  readonly timestamp: number;
}

/** Stable codes for failures; `reason` carries the human-readable text. */
export type ChatErrorCode =
  | 'token_expired'
  | 'invalid_token'
  | 'user_not_found'
  | 'bad_request'
  | 'not_logged_in'
  | 'already_logged_in'
  | 'login_timeout'
  | 'internal';

export type ServerFrame =
  | { readonly type: 'login-ok'; readonly user: string; readonly uuid: string; readonly expiresAt: number }
  | { readonly type: 'login-failed'; readonly code: ChatErrorCode; readonly reason: string }
  | { readonly type: 'renewed'; readonly reqId: string; readonly expiresAt: number }
  | { readonly type: 'sent'; readonly reqId: string; readonly id: string; readonly timestamp: number }
  | { readonly type: 'error'; readonly reqId?: string; readonly code: ChatErrorCode; readonly reason: string }
  | ({ readonly type: 'message' } & TextMessage)
  | { readonly type: 'token-will-expire'; readonly expiresAt: number }
  | { readonly type: 'token-expired' }
  | { readonly type: 'pong' };

/** WebSocket close codes the gateway uses (4000-4999 are application codes). */
export const CLOSE = Object.freeze({
  LOGIN_FAILED: 4001,
  TOKEN_EXPIRED: 4002,
  LOGIN_TIMEOUT: 4003,
  PROTOCOL: 4004,
  /** Policy violation: more unhandled frames than the gateway buffers. */
  FLOOD: 1008,
  GOING_AWAY: 1001,
});

/** The reason texts the chat service sends at login (docs/chat.md, "Gateway protocol"). */
export const LOGIN_REASONS = Object.freeze({
  expired: 'Sorry, token expired',
  mismatch: 'Sorry, token or password does not match login info',
  userNotFound: 'Sorry, user not found',
});

export const MAX_TEXT_LENGTH = 5000;
const MAX_FIELD = 4096;

export type Parsed<T> = { readonly ok: true; readonly frame: T } | { readonly ok: false; readonly reason: string; readonly reqId?: string };

function str(o: Record<string, unknown>, k: string, max = MAX_FIELD): string | undefined {
  const v = o[k];
  return typeof v === 'string' && v.length <= max ? v : undefined;
}

/** Validates a client frame; the reason names the bad field. */
export function parseClientFrame(raw: string): Parsed<ClientFrame> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { ok: false, reason: 'frame is not valid JSON' };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, reason: 'frame must be a JSON object' };
  const o = v as Record<string, unknown>;
  const reqId = str(o, 'reqId', 64);
  const fail = (reason: string): Parsed<ClientFrame> => ({ ok: false, reason, ...(reqId ? { reqId } : {}) });
  switch (o.type) {
    case 'login': {
      const user = str(o, 'user', 64);
      const token = str(o, 'token');
      if (!user) return fail('login.user must be a non-empty string of at most 64 characters');
      if (!token) return fail('login.token must be a non-empty string');
      return { ok: true, frame: { type: 'login', user, token } };
    }
    case 'renew': {
      const token = str(o, 'token');
      if (!reqId) return fail('renew.reqId must be a string of at most 64 characters');
      if (!token) return fail('renew.token must be a non-empty string');
      return { ok: true, frame: { type: 'renew', reqId, token } };
    }
    case 'send': {
      const to = str(o, 'to', 64);
      if (!reqId) return fail('send.reqId must be a string of at most 64 characters');
      if (!to) return fail('send.to must be a non-empty string of at most 64 characters');
      if (typeof o.text !== 'string') return fail('send.text must be a string');
      if (o.text.length === 0 || o.text.length > MAX_TEXT_LENGTH) {
        return fail(`send.text must have 1 to ${MAX_TEXT_LENGTH} characters`);
      }
      return { ok: true, frame: { type: 'send', reqId, to, text: o.text } };
    }
    case 'ack': {
      const id = str(o, 'id', 64);
      if (!id) return fail('ack.id must be a message id');
      return { ok: true, frame: { type: 'ack', id } };
    }
    case 'ping':
      return { ok: true, frame: { type: 'ping' } };
    default:
      return fail('type must be one of login, renew, send, ack, ping');
  }
}
