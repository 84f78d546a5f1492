import type { ReeltimeModule, ServerContext } from '../server/module.ts';

export interface StorageModule extends ReeltimeModule {}

export function createStorageModule(_ctx: ServerContext): StorageModule {
  return { name: 'storage', register() {}, close() {} };
}
