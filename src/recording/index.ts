export { createRecordingModule, type RecordingDeps, type RecordingModule } from './module.ts';
export type { RecordingConfig, RecordingCustomer } from './config.ts';
export * from './dispatch/index.ts';
export type {
  RecordingMode,
  Scene,
  StartClientRequest,
  StorageConfig as RecordingStorageConfig,
  UpdateClientRequest,
  UpdateLayoutClientRequest,
  LayoutFields,
  LayoutConfigEntry,
  BackgroundConfigEntry,
  TranscodingConfig,
  RecordingConfig as RecordingConfigRequest,
  SnapshotConfig,
  WebRecorderServiceParam,
  ExtensionServiceConfig,
} from './validation/types.ts';
export type { RecordingNotifier } from './notifier.ts';
