/**
 * The chat REST error catalogue. Bodies follow the chat service's flat shape
 * `{error, exception, timestamp, duration, error_description}` (see docs/chat.md).
 */
export class ChatRestError extends Error {
  override readonly name = 'ChatRestError';
  constructor(
    readonly status: number,
    readonly error: string,
    readonly exception: string,
    readonly description: string,
    /** Seconds to wait before trying again (`Retry-After`), on a rate-limit refusal. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}

export interface ChatErrorBody {
  readonly error: string;
  readonly exception: string;
  readonly timestamp: number;
  readonly duration: number;
  readonly error_description: string;
}

export function errorBody(e: ChatRestError, timestamp: number, duration: number): ChatErrorBody {
  return { error: e.error, exception: e.exception, timestamp, duration, error_description: e.description };
}

const ILLEGAL = 'java.lang.IllegalArgumentException';

export const chatErrors = {
  illegalArgument: (description: string) => new ChatRestError(400, 'illegal_argument', ILLEGAL, description),
  usernameMissing: () => chatErrors.illegalArgument('Entity user requires a property named username'),
  usernameIllegal: (name: string) => chatErrors.illegalArgument(`username [${name}] is not legal`),
  usernameTooLong: () => chatErrors.illegalArgument('USERNAME_TOO_LONG'),
  nicknameTooLong: () => chatErrors.illegalArgument('NICKNAME_TOO_LONG'),
  passwordTooLong: () => chatErrors.illegalArgument('PASSWORD_TOO_LONG'),
  invalidRequest: (detail: string) => chatErrors.illegalArgument(`This is an invalid request. ${detail}`.trim()),
  batchTooLarge: (size: number, max: number) =>
    chatErrors.illegalArgument(
      `Request body array size[${size}] had almost reached or been greater than the upper range value[${max}]`,
    ),
  duplicate: (name: string) =>
    new ChatRestError(
      400,
      'duplicate_unique_property_exists',
      'DuplicateUniquePropertyExistsException',
      `Application null Entity user requires that property named username be unique, value of ${name} exists`,
    ),
  jsonParse: (detail: string) =>
    new ChatRestError(400, 'json_parse', 'com.fasterxml.jackson.core.JsonParseException', detail),
  tokenMissing: (registering: boolean) =>
    new ChatRestError(
      401,
      'unauthorized',
      'UnauthorizedException',
      registering ? 'Registration is not open, please contact the app admin.' : 'Unable to authenticate (OAuth)',
    ),
  tokenExpired: () =>
    new ChatRestError(401, 'unauthorized', 'UnauthorizedException', 'Unable to authenticate due to expired access token'),
  tokenCorrupt: () =>
    new ChatRestError(
      401,
      'auth_bad_access_token',
      'EasemobSecurityException',
      'Unable to authenticate due to corrupt access token',
    ),
  tokenNotIssuedHere: () =>
    new ChatRestError(401, 'auth_bad_access_token', 'EasemobSecurityException', 'Unable to authenticate'),
  /** The spec's 24-hour maximum validity (reeltime's wording: the hosted service issues no such token). */
  tokenTooLong: () =>
    new ChatRestError(401, 'unauthorized', 'UnauthorizedException', 'token is illegal: valid for more than 24 hours'),
  tokenIllegal: () => new ChatRestError(401, 'unauthorized', 'UnauthorizedException', 'token is illegal.'),
  userNotFound: () =>
    new ChatRestError(404, 'service_resource_not_found', 'UserNotFoundException', 'Service resource not found'),
  appNotFound: (org: string, app: string, uri: string) =>
    new ChatRestError(
      404,
      'organization_application_not_found',
      'ApplicationNotFoundException',
      `Could not find application for ${org}/${app} from URI: ${uri}`,
    ),
  unsupportedMediaType: () => new ChatRestError(415, 'web_application', 'NotSupportedException', 'Unsupported Media Type'),
  tooLarge: () => new ChatRestError(413, 'web_application', 'RequestEntityTooLargeException', 'Request Entity Too Large'),
  rateLimited: (retryAfterSeconds: number) =>
    new ChatRestError(429, 'reach_limit', 'ReachLimitException', 'This request has reached API limit.', retryAfterSeconds),
  routeNotFound: () => new ChatRestError(404, 'web_application', 'NotFoundException', 'Not Found'),
  badRequest: (detail: string) => new ChatRestError(400, 'web_application', 'BadRequestException', detail),
  internal: () => new ChatRestError(500, 'internal_error', 'InternalServerError', 'Internal error, please retry later.'),
} as const;
