import { scrubSecrets, UploadError } from './types.ts';

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
 * `config`, everything else (connection refused, 5xx, timeouts) is `transient`. The message names the storage
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
  const cause = scrubSecrets(
    status ? `HTTP ${status}${code ? ` ${code}` : ''}` : net ? String(net) : String(err.message ?? e).slice(0, 200),
    secrets,
  );
  return new UploadError('transient', `${description}: ${what} failed: ${cause}`, code ?? net);
}
