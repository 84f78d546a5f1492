export { createRecordingModule, type RecordingDeps, type RecordingModule } from './module.ts';
export type { RecordingSettings, RecordingCustomer } from './config.ts';
export * from './dispatch/index.ts';
export type {
  RecordingMode,
  Scene,
  StartClientRequest,
  StorageConfig,
  UpdateClientRequest,
  UpdateLayoutClientRequest,
  LayoutFields,
  LayoutConfigEntry,
  BackgroundConfigEntry,
  TranscodingConfig,
  RecordingConfig,
  SnapshotConfig,
  WebRecorderServiceParam,
  ExtensionServiceConfig,
} from './validation/types.ts';
export type { RecordingNotifier } from './notifier.ts';
export { checkSceneMode, RECORDING_MODES, validateStartClientRequest, ValidationError } from './validation/index.ts';
// The recording API's Basic auth and gateway error bodies, which the ingress API (reeltime's extension) shares.
export { createAuthenticator, type Authenticator } from './api/index.ts';
export { errorResponse, RecordingApiError } from './errors.ts';
