import { scrubSecrets, UploadError } from './types.ts';

/** The error code a guarded lookup gives a connection to a non-public address (src/net guardedLookup). */
export const OUTBOUND_REFUSED = 'EOUTBOUNDREFUSED';
/** What a customer reads for any failure without an HTTP answer (refused, reset, closed, timed out, DNS). */
export const UNREACHABLE = 'the storage could not be reached (no answer; it may be down, unreachable or the endpoint wrong)';
/** What a customer reads when the storage host is or resolves to a non-public address (production). */
export const NOT_PUBLIC =
  'the storage endpoint is not a public address (private, loopback and other special-purpose addresses are refused)';

/** Error codes (S3 and Azure) that mean the storage settings are wrong, with a readable explanation. */
const CONFIG_CODES: Readonly<Record<string, string>> = Object.freeze({
  InvalidAccessKeyId: 'the access key is not known to the storage',
  SignatureDoesNotMatch: 'the secret key does not match the access key',
  AuthenticationFailed: 'the credentials were refused (account name or key wrong)',
  AuthorizationFailure: 'the credentials were refused or may not write to this bucket',
  AuthorizationPermissionMismatch: 'the credentials may not write to this bucket',
  AccessDenied: 'access denied: the credentials may not write to this bucket',
  AllAccessDisabled: 'access to the bucket is disabled',
  NoSuchBucket: 'the bucket does not exist',
  ContainerNotFound: 'the container (bucket) does not exist',
  InvalidBucketName: 'the bucket name is not valid for this storage',
  InvalidResourceName: 'the container (bucket) name is not valid for Azure',
  ExpiredToken: 'the stsToken has expired; send a new one with update',
  InvalidToken: 'the stsToken is not valid',
  TokenRefreshRequired: 'the stsToken must be refreshed',
  PermanentRedirect: 'the bucket is in another region than storageConfig.region',
  AuthorizationHeaderMalformed: 'the bucket is in another region than storageConfig.region',
  AccountIsDisabled: 'the storage account is disabled',
  InvalidAccessKey: 'the access key is not valid',
});

interface ErrorShape {
  name?: string;
  code?: string;
  statusCode?: number;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  Code?: string;
}

/**
 * Turns any SDK or network error into an UploadError: known credential/bucket codes and 4xx answers are
 * `config`, as is a host the outbound guard refused; everything else (no connection, 5xx, timeouts) is `transient`. The message names the storage
 * (without secrets) and the cause; server text is scrubbed of secrets before use.
 */
export function classifyError(
  e: unknown,
  what: string,
  description: string,
  secrets: readonly (string | undefined)[],
): UploadError {
  if (e instanceof UploadError) return e;
  const err = (e ?? {}) as ErrorShape;
  const code = err.code && CONFIG_CODES[err.code] ? err.code : err.Code ?? err.name ?? err.code;
  const status = err.$metadata?.httpStatusCode ?? err.statusCode;
  const known = code ? CONFIG_CODES[code] : undefined;
  if (known) return new UploadError('config', `${description}: ${what} failed: ${known} (${code})`, code);
  if (status === 401 || status === 403) {
    return new UploadError('config', `${description}: ${what} failed: credentials refused (HTTP ${status})`, code);
  }
  if (status === 404 && !/^(HEAD|GET)/.test(what)) {
    return new UploadError('config', `${description}: ${what} failed: bucket not found (HTTP 404)`, code);
  }
  const net = (e as NodeJS.ErrnoException)?.code ?? err.code;
  if (net === OUTBOUND_REFUSED || err.name === 'OutboundUrlError') {
    return new UploadError('config', `${description}: ${what} failed: ${NOT_PUBLIC}`, 'OutboundRefused');
  }
  if (status) {
    return new UploadError('transient', `${description}: ${what} failed: ${scrubSecrets(`HTTP ${status}${code ? ` ${code}` : ''}`, secrets)}`, code);
  }
  // No HTTP answer: refused, reset, closed or timed out all read the same to the customer, so upload errors can't
  // be used to map which hosts and ports of a network are open. The operator's log gets the cause (`detail`).
  const detail = scrubSecrets(net ? String(net) : String(err.message ?? e).slice(0, 200), secrets);
  return new UploadError('transient', `${description}: ${what} failed: ${UNREACHABLE}`, 'Unreachable', detail);
}
