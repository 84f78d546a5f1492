import { regionTable, type VendorSpec } from './types.ts';

/** Self-hosted S3-compatible storage (vendor 11): region 0, endpoint from `extensionParams.endpoint`, path-style. */
export const s3Compatible: VendorSpec = Object.freeze({
  vendor: 11,
  name: 'S3-compatible storage',
  api: 's3',
  virtualHosted: false,
  supportsSts: false,
  supportsSse: false,
  supportsTag: false,
  // The signing region most S3-compatible servers accept.
  regions: regionTable([[0, 'DEFAULT', 'us-east-1', undefined]], () => ''),
});
