import type { StorageSettings } from '../config.ts';
import { endpointUrl, describeStorage, type StorageConfig } from '../storage-config.ts';
import { vendorRegion, vendorSpec } from '../vendors/index.ts';
import { createAzureUploader } from './azure.ts';
import { createLocalUploader } from './local.ts';
import { createS3Uploader, parseTag } from './s3.ts';
import { UploadError, type Uploader } from './types.ts';

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

/** Builds the uploader of a session's storage. */
export function createUploader(storage: StorageConfig, config: StorageSettings, now: () => number): Uploader {
  const d = resolveDestination(storage, config);
  const description = describeStorage(storage);
  if (d.api === 'local') return createLocalUploader(d.root, d.bucket);
  if (d.api === 'azure') {
    return createAzureUploader({
      serviceUrl: d.serviceUrl,
      accountName: storage.accessKey,
      accountKey: storage.secretKey,
      container: d.container,
      blockSize: config.partSizeBytes,
      description,
    });
  }
  return createS3Uploader({
    endpoint: d.endpoint,
    region: d.signingRegion,
    forcePathStyle: d.forcePathStyle,
    bucket: d.bucket,
    accessKeyId: storage.accessKey,
    secretAccessKey: storage.secretKey,
    ...(d.useSts ? { sessionToken: storage.stsToken! } : {}),
    ...(d.useSts && storage.stsExpiration ? { sessionTokenExpiresAt: storage.stsExpiration * 1000 } : {}),
    ...(d.sse ? { sse: d.sse } : {}),
    ...(d.tag ? { tags: parseTag(d.tag) } : {}),
    partSize: config.partSizeBytes,
    now,
    description,
  });
}
