export { createStorageModule, type StorageModule } from './module.ts';
export type { StorageSettings } from './config.ts';
export {
  STORAGE_VENDORS,
  VENDORS,
  checkStorageRegionInArea,
  isStorageVendor,
  storageRegionArea,
  validateStorageRegion,
  vendorRegion,
  vendorSpec,
  type StorageArea,
  type StorageConfigProblem,
  type StorageVendor,
  type VendorRegion,
  type VendorSpec,
} from './vendors/index.ts';
export {
  BUCKET_NAME,
  MAX_BUCKET_LENGTH,
  MAX_PREFIX_LENGTH,
  PREFIX_ELEMENT,
  SSE_MODES,
  describeStorage,
  validateStorageConfig,
  type StorageConfigCheck,
  type StorageConfig,
  type StorageExtensionParams,
} from './storage-config.ts';
export { checkStorageTarget } from './outbound.ts';
export { seal, sealingKey, unseal } from './seal.ts';
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
  UploadTotals,
} from './spool/index.ts';
export { UploadError, createUploader, type ObjectInfo, type PutRequest, type UploadBody, type Uploader } from './uploaders/index.ts';
