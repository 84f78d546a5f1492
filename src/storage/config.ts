import type { CoreConfig } from '../config/core.ts';
import type { ConfigSource } from '../config/source.ts';

/** Settings of the storage module (file section "storage", environment overrides REELTIME_STORAGE_*). */
export interface StorageConfig {}

export function parseStorageConfig(_src: ConfigSource, _core: CoreConfig): StorageConfig {
  return {};
}
