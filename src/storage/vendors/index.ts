export type { StorageArea, StorageVendor, VendorRegion, VendorSpec } from './types.ts';
export { STORAGE_VENDORS, VENDORS, isStorageVendor, vendorSpec } from './table.ts';
export {
  checkStorageRegionInArea,
  storageRegionArea,
  validateStorageRegion,
  vendorRegion,
  type StorageConfigProblem,
} from './region.ts';
export { AZURE_ACCOUNT_NAME, bucketNameProblem } from './names.ts';
