import { regionTable, type VendorSpec } from './types.ts';

/** Google Cloud Storage (vendor 6) through its S3 interoperability endpoint with HMAC keys; region 0 only. */
export const googleCloudStorage: VendorSpec = Object.freeze({
  vendor: 6,
  name: 'Google Cloud Storage',
  api: 's3',
  virtualHosted: false,
  supportsSts: false,
  supportsSse: false,
  supportsTag: false,
  regions: regionTable([[0, 'AUTO', 'auto', undefined]], () => 'https://storage.googleapis.com'),
});
