import { defineVendor } from './types.ts';

/** Google Cloud Storage (vendor 6) through its S3 interoperability endpoint with HMAC keys; region 0 only. */
export const googleCloudStorage = defineVendor({
  vendor: 6,
  name: 'Google Cloud Storage',
  virtualHosted: false,
  endpoint: () => 'https://storage.googleapis.com',
  regions: [[0, 'AUTO', 'auto', undefined]],
});
