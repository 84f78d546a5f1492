import type { StorageConfig } from '../config.ts';
import { endpointUrl, describeStorage, type StorageConfigInput } from '../storage-config.ts';
import { vendorRegion } from '../vendors/region.ts';
import { vendorSpec } from '../vendors/table.ts';
import { createAzureUploader } from './azure.ts';
import { createLocalUploader } from './local.ts';
import { createS3Uploader, parseTag } from './s3.ts';
import { UploadError, type Uploader } from './types.ts';

/** Where a session's files go: the local bucket, or the vendor's API at its regional (or overridden) endpoint. */
export function createUploader(storage: StorageConfigInput, config: StorageConfig, now: () => number): Uploader {
  if (config.routeAllToLocal) return createLocalUploader(config.bucketDir, storage.bucket);
  const spec = vendorSpec(storage.vendor);
  const region = vendorRegion(storage.vendor, storage.region);
  if (!spec || !region) throw new UploadError('config', `${describeStorage(storage)} is not a supported vendor/region`);
  const override = config.endpoints[storage.vendor];
  const description = describeStorage(storage);
  if (spec.api === 'azure') {
    return createAzureUploader({
      // Overrides are path-style (Azurite): <endpoint>/<account>.
      serviceUrl: override
        ? `${override}/${encodeURIComponent(storage.accessKey)}`
        : `https://${storage.accessKey}.blob.core.windows.net`,
      accountName: storage.accessKey,
      accountKey: storage.secretKey,
      container: storage.bucket,
      blockSize: config.partSizeBytes,
      description,
    });
  }
  const custom = storage.vendor === 11 ? endpointUrl(storage.extensionParams?.endpoint ?? '') : undefined;
  const endpoint = override ?? custom ?? region.endpoint;
  if (!endpoint) throw new UploadError('config', `${description}: extensionParams.endpoint is required for vendor 11`);
  const ext = storage.extensionParams;
  return createS3Uploader({
    endpoint,
    region: region.id,
    forcePathStyle: override !== undefined || !spec.virtualHosted,
    bucket: storage.bucket,
    accessKeyId: storage.accessKey,
    secretAccessKey: storage.secretKey,
    ...(spec.supportsSts && storage.stsToken ? { sessionToken: storage.stsToken } : {}),
    ...(spec.supportsSts && storage.stsToken && storage.stsExpiration
      ? { sessionTokenExpiresAt: storage.stsExpiration * 1000 }
      : {}),
    ...(spec.supportsSse && ext?.sse ? { sse: ext.sse } : {}),
    ...(spec.supportsTag && ext?.tag ? { tags: parseTag(ext.tag) } : {}),
    partSize: config.partSizeBytes,
    now,
    description,
  });
}
