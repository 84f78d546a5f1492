/**
 * Every refusal of the channel HTTP surface: a stable code, its status, and a readable reason.
 * Bodies are `{ "error": code, "reason": text }`; docs/channel.md lists the codes (errors.test.ts keeps the two
 * in step). `bad_request` carries the 4xx status Fastify chose for a request it could not read (400, 413, ...).
 */
export const CHANNEL_ERRORS = Object.freeze({
  bad_request: 400,
  bad_sdp: 400,
  bad_uid: 400,
  bad_channel: 400,
  bad_profile: 400,
  bad_layer: 400,
  unsupported_media_type: 415,
  token_missing: 401,
  token_invalid: 401,
  token_expired: 401,
  token_wrong_channel: 403,
  token_wrong_uid: 403,
  token_no_publish: 403,
  token_wrong_app: 403,
  unauthorized: 401,
  app_not_found: 404,
  session_not_found: 404,
  publisher_not_found: 409,
  uid_taken: 409,
  profile_mismatch: 409,
  codec_unsupported: 406,
  etag_required: 428,
  etag_mismatch: 412,
  negotiation_failed: 422,
  not_enabled: 404,
  internal: 500,
  placement_unavailable: 503,
  too_many_sessions: 429,
  too_many_streams: 429,
  too_many_failed_logins: 429,
} as const);

export type ChannelErrorCode = keyof typeof CHANNEL_ERRORS;

export class ChannelError extends Error {
  override readonly name = 'ChannelError';
  readonly status: number;
  constructor(
    readonly code: ChannelErrorCode,
    readonly reason: string,
    /** For a 429 that knows when to come back (a throttled login); otherwise the route's own retry time. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${reason}`);
    this.status = CHANNEL_ERRORS[code];
  }
}

export function isChannelError(e: unknown): e is ChannelError {
  return e instanceof ChannelError;
}
