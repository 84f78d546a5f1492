import { regionTable, type VendorSpec } from './types.ts';

/**
 * Microsoft Azure Blob (vendor 5): accessKey is the account name, secretKey the account key, bucket the container.
 * Region 0 only; the endpoint is per account (`https://<account>.blob.core.windows.net`), so `endpoint` here is
 * the suffix the account name is put in front of.
 */
export const azureBlob: VendorSpec = Object.freeze({
  vendor: 5,
  name: 'Microsoft Azure Blob Storage',
  api: 'azure',
  virtualHosted: true,
  supportsSts: false,
  supportsSse: false,
  supportsTag: false,
  regions: regionTable([[0, 'GLOBAL', 'global', undefined]], () => 'https://blob.core.windows.net'),
});
