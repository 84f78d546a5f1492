import { defineVendor } from './types.ts';

/** Self-hosted S3-compatible storage (vendor 11): region 0, endpoint from `extensionParams.endpoint`, path-style. */
export const s3Compatible = defineVendor({
  vendor: 11,
  name: 'S3-compatible storage',
  virtualHosted: false,
  endpoint: () => '',
  // The signing region most S3-compatible servers accept.
  regions: [[0, 'DEFAULT', 'us-east-1', undefined]],
});
