export { createUploader, resolveDestination, type Destination } from './factory.ts';
export { localObjectPath } from './local.ts';
export { UploadError, scrubSecrets, type ObjectInfo, type PutRequest, type UploadBody, type Uploader } from './types.ts';
