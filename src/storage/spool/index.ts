export { UploadSpool, type SpoolDeps, type UploadMeter } from './engine.ts';
export { SpoolStore, latestPerKey, toSpooledFile, type FileRow, type SessionRow } from './store.ts';
export type * from './types.ts';
