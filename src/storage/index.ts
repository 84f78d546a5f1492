export { createStorageModule, type StorageModule } from './module.ts';
export type { StorageConfig } from './config.ts';
export type { StorageArea, StorageVendor, VendorRegion, VendorSpec } from './vendors/types.ts';
export { STORAGE_VENDORS, VENDORS, isStorageVendor, vendorSpec } from './vendors/table.ts';
export {
  checkStorageRegionInArea,
  storageRegionArea,
  validateStorageRegion,
  vendorRegion,
  type StorageConfigProblem,
} from './vendors/region.ts';
export {
  MAX_PREFIX_LENGTH,
  describeStorage,
  validateStorageConfig,
  type StorageConfigCheck,
  type StorageConfigInput,
  type StorageExtensionParams,
} from './storage-config.ts';
export { contentTypeFor, isSafeObjectKey, objectKey } from './naming.ts';
export type {
  EnqueueOptions,
  EnqueueResult,
  FinishResult,
  OpenSessionInput,
  SessionUploadStatus,
  SpooledFile,
  StorageEvent,
  StorageEventListener,
  UploadingStatus,
  UploadSession,
} from './spool/types.ts';
export type { ObjectInfo, PutRequest, UploadBody, Uploader } from './uploaders/types.ts';
export { UploadError } from './uploaders/types.ts';
export { createUploader } from './uploaders/factory.ts';
