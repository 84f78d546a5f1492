import { defineVendor } from './types.ts';

/**
 * Microsoft Azure Blob (vendor 5): accessKey is the account name, secretKey the account key, bucket the container.
 * Region 0 only; the endpoint is per account (`https://<account>.blob.core.windows.net`), so `endpoint` here is
 * the suffix the account name is put in front of.
 */
export const azureBlob = defineVendor({
  vendor: 5,
  name: 'Microsoft Azure Blob Storage',
  api: 'azure',
  endpoint: () => 'https://blob.core.windows.net',
  regions: [[0, 'GLOBAL', 'global', undefined]],
});
