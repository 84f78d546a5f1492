// Named rejection reasons shared by the parser and the verifiers (Hono-style named failures).

export type TokenRejectionReason =
  | 'malformed'
  | 'wrong_version'
  | 'bad_signature'
  | 'expired'
  | 'wrong_app'
  | 'wrong_channel'
  | 'wrong_uid'
  | 'wrong_user'
  | 'missing_service'
  | 'missing_privilege'
  | 'unknown_service'
  /** A chat token valid for longer than the spec's 24 hours (CHAT_TOKEN_MAX_VALIDITY_SECONDS). */
  | 'validity_too_long';

export interface TokenRejection {
  readonly ok: false;
  readonly reason: TokenRejectionReason;
  /** Says what was wrong; never contains the certificate. */
  readonly message: string;
}

export function reject(reason: TokenRejectionReason, message: string): TokenRejection {
  return { ok: false, reason, message };
}
