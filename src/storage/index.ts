export { createStorageModule, type StorageModule } from './module.ts';
export type { StorageConfig } from './config.ts';
