import { isIP, type LookupFunction } from 'node:net';
import { guardedLookup, OutboundUrlError, resolveOutboundHost, type OutboundPolicy } from '../../net/index.ts';
import type { StorageSettings } from '../config.ts';
import { endpointUrl, describeStorage, type StorageConfig } from '../storage-config.ts';
import { vendorRegion, vendorSpec } from '../vendors/index.ts';
import type { AzureUploaderOptions } from './azure.ts';
import { createLocalUploader } from './local.ts';
import type { S3UploaderOptions } from './s3.ts';
import { NOT_PUBLIC } from './classify.ts';
import { UploadError, type ObjectInfo, type PutRequest, type Uploader } from './types.ts';

/** Where a session's files go, without credentials (pure; tested per vendor and region). */
export type Destination =
  | { readonly api: 'local'; readonly root: string; readonly bucket: string }
  | { readonly api: 'azure'; readonly serviceUrl: string; readonly container: string }
  | {
      readonly api: 's3';
      readonly endpoint: string;
      readonly signingRegion: string;
      readonly forcePathStyle: boolean;
      readonly bucket: string;
      readonly useSts: boolean;
      readonly sse: 'kms' | 'aes256' | undefined;
      readonly tag: string | undefined;
    };

/** The local bucket when everything is routed there, else the vendor's API at its regional or overridden endpoint. */
export function resolveDestination(storage: StorageConfig, config: StorageSettings): Destination {
  if (config.routeAllToLocal) return { api: 'local', root: config.bucketDir, bucket: storage.bucket };
  const spec = vendorSpec(storage.vendor);
  const region = vendorRegion(storage.vendor, storage.region);
  const description = describeStorage(storage);
  if (!spec || !region) throw new UploadError('config', `${description} is not a supported vendor/region`);
  const override = config.endpoints[storage.vendor];
  if (spec.api === 'azure') {
    return {
      api: 'azure',
      // Overrides are path-style (Azurite): <endpoint>/<account>.
      serviceUrl: override
        ? `${override}/${encodeURIComponent(storage.accessKey)}`
        : `https://${storage.accessKey}.blob.core.windows.net`,
      container: storage.bucket,
    };
  }
  const custom = storage.vendor === 11 ? endpointUrl(storage.extensionParams?.endpoint ?? '') : undefined;
  const endpoint = override ?? custom ?? region.endpoint;
  if (!endpoint) throw new UploadError('config', `${description}: extensionParams.endpoint is required for vendor 11`);
  const ext = storage.extensionParams;
  return {
    api: 's3',
    endpoint,
    signingRegion: region.id,
    forcePathStyle: override !== undefined || !spec.virtualHosted,
    bucket: storage.bucket,
    useSts: spec.supportsSts && !!storage.stsToken,
    sse: spec.supportsSse ? ext?.sse : undefined,
    tag: spec.supportsTag ? ext?.tag : undefined,
  };
}

/**
 * The connect-time half of the outbound guard for a session's storage (the start-time half is checkStorageTarget):
 * undefined when nothing needs guarding (private targets allowed, or an operator's endpoint override, which the
 * operator chose). Otherwise the lookup every socket of the storage client uses (a name that resolves to a
 * non-public address is refused when the connection is made, whatever it resolved to at start) and a check of an
 * IP-literal host, which never reaches a lookup.
 */
function storageGuard(
  serviceUrl: string,
  overridden: boolean,
  policy: OutboundPolicy | undefined,
  description: string,
): { readonly lookup: LookupFunction; readonly check: () => Promise<void> } | undefined {
  if (!policy || policy.allowPrivate || overridden) return undefined;
  const url = new URL(serviceUrl);
  return {
    lookup: guardedLookup(policy, url),
    async check() {
      if (isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) === 0) return;
      try {
        await resolveOutboundHost(url.hostname, policy, url);
      } catch (e) {
        if (e instanceof OutboundUrlError) throw new UploadError('config', `${description}: ${NOT_PUBLIC}`, 'OutboundRefused', e.message);
        throw e;
      }
    },
  };
}

/**
 * Builds the uploader of a session's storage. `outbound` is the outbound guard's policy (production: private
 * targets refused); without it nothing is checked (tests of the uploaders themselves).
 */
export function createUploader(storage: StorageConfig, config: StorageSettings, now: () => number, outbound?: OutboundPolicy): Uploader {
  const d = resolveDestination(storage, config);
  const description = describeStorage(storage);
  if (d.api === 'local') return createLocalUploader(d.root, d.bucket);
  const overridden = config.endpoints[storage.vendor] !== undefined;
  if (d.api === 'azure') {
    const guard = storageGuard(d.serviceUrl, overridden, outbound, description);
    const options: AzureUploaderOptions = {
      serviceUrl: d.serviceUrl,
      accountName: storage.accessKey,
      accountKey: storage.secretKey,
      container: d.container,
      blockSize: config.partSizeBytes,
      description,
      ...(guard ? { lookup: guard.lookup } : {}),
    };
    return deferred('azure', description, async () => {
      await guard?.check();
      return (await import('./azure.ts')).createAzureUploader(options);
    });
  }
  const guard = storageGuard(d.endpoint, overridden, outbound, description);
  const options: Omit<S3UploaderOptions, 'tags'> = {
    endpoint: d.endpoint,
    region: d.signingRegion,
    forcePathStyle: d.forcePathStyle,
    bucket: d.bucket,
    accessKeyId: storage.accessKey,
    secretAccessKey: storage.secretKey,
    ...(d.useSts ? { sessionToken: storage.stsToken! } : {}),
    ...(d.useSts && storage.stsExpiration ? { sessionTokenExpiresAt: storage.stsExpiration * 1000 } : {}),
    ...(d.sse ? { sse: d.sse } : {}),
    partSize: config.partSizeBytes,
    now,
    description,
    ...(guard ? { lookup: guard.lookup } : {}),
  };
  const tag = d.tag;
  return deferred('s3', description, async () => {
    await guard?.check();
    const s3 = await import('./s3.ts');
    return s3.createS3Uploader({ ...options, ...(tag ? { tags: s3.parseTag(tag) } : {}) });
  });
}

/**
 * An uploader whose vendor SDK is loaded on first use. The AWS and Azure SDKs cost every process that starts
 * reeltime (each test file with a server, the CLI) a few hundred ms of CPU to load, while most never upload
 * anywhere but the local bucket.
 */
function deferred(kind: 's3' | 'azure', description: string, load: () => Promise<Uploader>): Uploader {
  let loading: Promise<Uploader> | undefined;
  const real = () => (loading ??= load());
  return {
    kind,
    description,
    put: async (req: PutRequest) => (await real()).put(req),
    head: async (key: string): Promise<ObjectInfo | undefined> => (await real()).head(key),
    get: async (key: string) => (await real()).get(key),
    list: async (prefix?: string) => (await real()).list(prefix),
    delete: async (key: string) => (await real()).delete(key),
    readUrl: async (key: string, expiresAtMs: number) => (await real()).readUrl(key, expiresAtMs),
    close() {
      void loading?.then((u) => u.close(), () => undefined);
    },
  };
}
