export { UploadSpool, type SpoolDeps } from './engine.ts';
export { SpoolStore, latestPerKey, toSpooledFile, type FileRow, type SessionRow } from './store.ts';
export type * from './types.ts';
