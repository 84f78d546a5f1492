import { AZURE_ACCOUNT_NAME, bucketNameProblem, validateStorageRegion, vendorSpec, type StorageConfigProblem, type StorageVendor } from './vendors/index.ts';

/** `storageConfig.extensionParams`: `sse` and `tag` from the spec (an empty string is "not set"), `endpoint` for vendor 11. */
export interface StorageExtensionParams {
  readonly sse?: 'kms' | 'aes256';
  readonly tag?: string;
  /** Vendor 11 only: the server's URL or host name. */
  readonly endpoint?: string;
}

/** A validated `storageConfig` of a start request. Holds secrets: never log or return it whole. */
export interface StorageConfig {
  readonly vendor: StorageVendor;
  readonly region: number;
  readonly bucket: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly stsToken?: string;
  /** UNIX seconds. */
  readonly stsExpiration?: number;
  readonly fileNamePrefix?: readonly string[];
  readonly extensionParams?: StorageExtensionParams;
}

export type StorageConfigCheck =
  | { readonly ok: true; readonly value: StorageConfig }
  | ({ readonly ok: false } & StorageConfigProblem);

/** One element of `fileNamePrefix`. */
export const PREFIX_ELEMENT = /^[a-zA-Z0-9]+$/;
export const MAX_PREFIX_LENGTH = 128;
/** A bucket name (1-255 characters in all). */
export const BUCKET_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
export const MAX_BUCKET_LENGTH = 255;
/** The values of `extensionParams.sse`. */
export const SSE_MODES = Object.freeze(['kms', 'aes256'] as const);

function fail(field: string, reason: string): StorageConfigCheck {
  return { ok: false, field: `storageConfig.${field}`, reason: `storageConfig.${field} ${reason}` };
}

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Checks a storageConfig object against the spec and the vendor rules (region table, which options apply to
 * which vendor). Messages name the field and never echo accessKey, secretKey or stsToken.
 */
export function validateStorageConfig(input: unknown): StorageConfigCheck {
  if (!input || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, field: 'storageConfig', reason: 'storageConfig must be an object' };
  }
  const o = input as Record<string, unknown>;
  if (typeof o.vendor !== 'number' || !Number.isInteger(o.vendor)) return fail('vendor', 'must be an integer');
  if (typeof o.region !== 'number' || !Number.isInteger(o.region)) return fail('region', 'must be an integer');
  const regionProblem = validateStorageRegion(o.vendor, o.region);
  if (regionProblem) return { ok: false, ...regionProblem };
  const spec = vendorSpec(o.vendor)!;
  if (!isString(o.bucket) || o.bucket.length === 0) return fail('bucket', 'must be a non-empty string');
  if (o.bucket.length > MAX_BUCKET_LENGTH || !BUCKET_NAME.test(o.bucket)) {
    return fail('bucket', 'must be 1-255 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  if (!isString(o.accessKey) || o.accessKey.length === 0) return fail('accessKey', 'must be a non-empty string');
  if (!isString(o.secretKey) || o.secretKey.length === 0) return fail('secretKey', 'must be a non-empty string');
  if (o.stsToken !== undefined) {
    if (!isString(o.stsToken) || o.stsToken.length === 0) return fail('stsToken', 'must be a non-empty string');
    if (!spec.supportsSts) return fail('stsToken', `is supported for vendors 1, 2 and 3 only, not ${spec.vendor}`);
  }
  if (o.stsExpiration !== undefined) {
    if (typeof o.stsExpiration !== 'number' || !Number.isInteger(o.stsExpiration) || o.stsExpiration < 0) {
      return fail('stsExpiration', 'must be a UNIX time in seconds');
    }
    if (o.stsToken === undefined) return fail('stsExpiration', 'needs storageConfig.stsToken');
  }
  if (o.fileNamePrefix !== undefined) {
    if (!Array.isArray(o.fileNamePrefix)) return fail('fileNamePrefix', 'must be an array of strings');
    for (const [i, el] of o.fileNamePrefix.entries()) {
      if (!isString(el) || !PREFIX_ELEMENT.test(el)) {
        return fail(`fileNamePrefix[${i}]`, 'may contain only a-z, A-Z and 0-9 and must not be empty');
      }
    }
    if ((o.fileNamePrefix as string[]).join('/').length > MAX_PREFIX_LENGTH) {
      return fail('fileNamePrefix', `joined with "/" must be at most ${MAX_PREFIX_LENGTH} characters`);
    }
  }
  let ext: StorageExtensionParams | undefined;
  if (o.extensionParams !== undefined) {
    const given = o.extensionParams;
    if (!given || typeof given !== 'object' || Array.isArray(given)) return fail('extensionParams', 'must be an object');
    // Clients send "" for an option they do not use (the Go REST client's `sse: ""`): that is "not set".
    const e = Object.fromEntries(
      Object.entries(given).filter(([k, v]) => !((k === 'sse' || k === 'tag') && v === '')),
    ) as Record<string, unknown>;
    ext = e as StorageExtensionParams;
    if (e.sse !== undefined) {
      if (!SSE_MODES.includes(e.sse as never)) return fail('extensionParams.sse', 'must be "kms" or "aes256"');
      if (!spec.supportsSse) return fail('extensionParams.sse', `applies to vendor 1 only, not ${spec.vendor}`);
    }
    if (e.tag !== undefined) {
      if (!isString(e.tag) || e.tag.length === 0) return fail('extensionParams.tag', 'must be a non-empty string');
      if (!spec.supportsTag) return fail('extensionParams.tag', `applies to vendors 1 and 2 only, not ${spec.vendor}`);
    }
    if (e.endpoint !== undefined) {
      if (spec.vendor !== 11) return fail('extensionParams.endpoint', 'applies to vendor 11 only');
      if (!isString(e.endpoint) || endpointUrl(e.endpoint) === undefined) {
        return fail('extensionParams.endpoint', 'must be a host name or an http(s) URL');
      }
    }
  }
  if (spec.vendor === 11 && !ext?.endpoint) {
    return fail('extensionParams.endpoint', 'is required for vendor 11 (S3-compatible storage)');
  }
  // The vendor's own rules last, so the general messages above (which tests and docs quote) come first.
  const bucketRule = bucketNameProblem(spec.vendor, o.bucket);
  if (bucketRule) return fail('bucket', bucketRule);
  if (spec.api === 'azure' && !AZURE_ACCOUNT_NAME.test(o.accessKey)) {
    // The account name becomes the host name: nothing else may reach a URL. The value is not echoed.
    return fail('accessKey', 'must be an Azure storage account name: 3-24 lowercase letters and digits');
  }
  const value: StorageConfig = {
    vendor: spec.vendor,
    region: o.region,
    bucket: o.bucket,
    accessKey: o.accessKey,
    secretKey: o.secretKey,
    ...(o.stsToken !== undefined ? { stsToken: o.stsToken as string } : {}),
    ...(o.stsExpiration !== undefined ? { stsExpiration: o.stsExpiration as number } : {}),
    ...(o.fileNamePrefix !== undefined ? { fileNamePrefix: [...(o.fileNamePrefix as string[])] } : {}),
    ...(ext !== undefined ? { extensionParams: { ...ext } } : {}),
  };
  return { ok: true, value };
}

/** `extensionParams.endpoint` as a URL: a bare host gets https://. Undefined when it is not one. */
export function endpointUrl(endpoint: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? endpoint : `https://${endpoint}`;
  try {
    const u = new URL(withScheme);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    if (u.username || u.password || u.search || u.hash) return undefined;
    return withScheme.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** The storage settings with secrets replaced, for logs and error reports. */
export function describeStorage(s: StorageConfig): string {
  return `vendor ${s.vendor} region ${s.region} bucket "${s.bucket}"`;
}
