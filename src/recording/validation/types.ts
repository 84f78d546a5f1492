/**
 * Typed, validated request bodies of the recording API, derived from the schemas of tables.ts (one per spec
 * table). Produced only by the checkers of this folder; everything downstream (lifecycle, recorders) trusts them.
 */
import type { Out } from './schema.ts';
import type * as S from './tables.ts';

export type RecordingMode = 'individual' | 'mix' | 'web';
export const RECORDING_MODES: readonly RecordingMode[] = Object.freeze(['individual', 'mix', 'web']);

export type Scene = Out<typeof S.AcquireClientRequestSchema>['scene'] & {};

/** storageConfig is validated by the storage module (vendor and region tables); its types are reused here. */
export type {
  StorageArea as Area,
  StorageConfig,
  StorageExtensionParams as ExtensionParams,
} from '../../storage/index.ts';

export type LayoutConfigEntry = Out<typeof S.LayoutConfigEntrySchema>;
export type BackgroundConfigEntry = Out<typeof S.BackgroundConfigEntrySchema>;
/** The layout part shared by transcodingConfig and updateLayout. */
export type LayoutFields = Out<typeof S.LayoutFieldsSchema>;
export type TranscodingConfig = Out<typeof S.TranscodingConfigSchema>;
export type RecordingConfig = Out<typeof S.RecordingConfigSchema>;
export type RecordingFileConfig = Out<typeof S.RecordingFileConfigSchema>;
export type SnapshotConfig = Out<typeof S.SnapshotConfigSchema>;
export type WebRecorderServiceParam = Out<typeof S.WebRecorderServiceParamSchema>;
export type RtmpOutput = Out<typeof S.RtmpOutputSchema>;
export type RtmpPublishServiceParam = Out<typeof S.RtmpPublishServiceParamSchema>;
export type ExtensionService = Out<typeof S.ExtensionServiceSchema>;
export type ExtensionServiceConfig = Out<typeof S.ExtensionServiceConfigSchema>;
export type AppsCollection = Out<typeof S.AppsCollectionSchema>;
export type TranscodeOptions = Out<typeof S.TranscodeOptionsSchema>;
/** `clientRequest` of start (and `startParameter` of acquire). */
export type StartClientRequest = Out<typeof S.StartClientRequestSchema>;
export type AcquireClientRequest = Out<typeof S.AcquireClientRequestSchema>;
export type AcquireRequest = Out<typeof S.AcquireRequestSchema>;
export type StartRequest = Out<typeof S.StartRequestSchema>;
export type UidLists = Pick<RecordingConfig, 'subscribeAudioUids' | 'unsubscribeAudioUids' | 'subscribeVideoUids' | 'unsubscribeVideoUids'>;
export type UpdateClientRequest = Out<typeof S.UpdateClientRequestSchema>;
export type UpdateRequest = Out<typeof S.UpdateRequestSchema>;
export type UpdateLayoutClientRequest = Out<typeof S.UpdateLayoutClientRequestSchema>;
export type UpdateLayoutRequest = Out<typeof S.UpdateLayoutRequestSchema>;
export type StopRequest = Out<typeof S.StopRequestSchema>;
