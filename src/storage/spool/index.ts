export { UploadSpool, type SpoolDeps } from './engine.ts';
export { SpoolStore, latestPerKey, toSpooledFile, type FileRow, type SessionRow } from './store.ts';
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
} from './types.ts';
