/**
 * Typed, validated request bodies of the recording API (one interface per spec table). Produced only by the
 * validators in this folder; everything downstream (lifecycle, recorders) trusts these shapes.
 */

export type RecordingMode = 'individual' | 'mix' | 'web';
export const RECORDING_MODES: readonly RecordingMode[] = Object.freeze(['individual', 'mix', 'web']);

export type Scene = 0 | 1 | 2;

/** storageConfig is validated by the storage module (vendor and region tables); its types are reused here. */
export type {
  StorageArea as Area,
  StorageConfigInput as StorageConfig,
  StorageExtensionParams as ExtensionParams,
} from '../../storage/index.ts';
import type { StorageArea as Area, StorageConfigInput as StorageConfig } from '../../storage/index.ts';

export interface LayoutConfigEntry {
  readonly uid?: string;
  readonly x_axis: number;
  readonly y_axis: number;
  readonly width: number;
  readonly height: number;
  readonly alpha?: number;
  readonly render_mode?: 0 | 1;
}

export interface BackgroundConfigEntry {
  readonly uid: string;
  readonly image_url: string;
  readonly render_mode?: 0 | 1;
}

/** The layout part shared by transcodingConfig and updateLayout. */
export interface LayoutFields {
  readonly maxResolutionUid?: string;
  readonly mixedVideoLayout?: 0 | 1 | 2 | 3;
  readonly backgroundColor?: string;
  readonly backgroundImage?: string;
  readonly defaultUserBackgroundImage?: string;
  readonly layoutConfig?: readonly LayoutConfigEntry[];
  readonly backgroundConfig?: readonly BackgroundConfigEntry[];
}

export interface TranscodingConfig extends LayoutFields {
  readonly width?: number;
  readonly height?: number;
  readonly fps?: number;
  readonly bitrate?: number;
}

export interface RecordingConfig {
  readonly channelType: 0 | 1;
  readonly decryptionMode?: number;
  readonly secret?: string;
  readonly salt?: string;
  readonly maxIdleTime?: number;
  readonly streamTypes?: 0 | 1 | 2;
  readonly videoStreamType?: 0 | 1;
  readonly subscribeAudioUids?: readonly string[];
  readonly unsubscribeAudioUids?: readonly string[];
  readonly subscribeVideoUids?: readonly string[];
  readonly unsubscribeVideoUids?: readonly string[];
  readonly subscribeUidGroup?: 0 | 1 | 2 | 3 | 4 | 5;
  readonly streamMode?: 'default' | 'standard' | 'original';
  readonly audioProfile?: 0 | 1 | 2;
  readonly transcodingConfig?: TranscodingConfig;
}

export interface RecordingFileConfig {
  readonly avFileType?: readonly ('hls' | 'mp4')[];
}

export interface SnapshotConfig {
  readonly captureInterval?: number;
  readonly fileType: readonly 'jpg'[];
}

export interface WebRecorderServiceParam {
  readonly url: string;
  readonly audioProfile: 0 | 1 | 2;
  readonly videoWidth: number;
  readonly videoHeight: number;
  readonly maxRecordingHour: number;
  readonly videoBitrate?: number;
  readonly videoFps?: number;
  readonly mobile?: boolean;
  readonly maxVideoDuration?: number;
  readonly onhold?: boolean;
  readonly readyTimeout?: number;
}

export interface RtmpOutput {
  readonly rtmpUrl: string;
}

export interface RtmpPublishServiceParam {
  readonly outputs: readonly RtmpOutput[];
}

export type ExtensionService =
  | {
      readonly serviceName: 'web_recorder_service';
      readonly errorHandlePolicy?: 'error_abort';
      readonly serviceParam: WebRecorderServiceParam;
    }
  | {
      readonly serviceName: 'rtmp_publish_service';
      readonly errorHandlePolicy?: 'error_ignore';
      readonly serviceParam: RtmpPublishServiceParam;
    };

export interface ExtensionServiceConfig {
  readonly errorHandlePolicy?: 'error_abort';
  readonly extensionServices: readonly ExtensionService[];
}

export interface AppsCollection {
  readonly combinationPolicy?: 'postpone_transcoding' | 'default';
}

export interface TranscodeOptions {
  readonly transConfig: { readonly transMode: 'postponeTranscoding' | 'audioMix' };
  readonly container?: { readonly format?: 'mp4' | 'mp3' | 'm4a' | 'aac' };
  readonly audio?: {
    readonly sampleRate?: '48000' | '32000' | '16000';
    readonly bitrate?: string;
    readonly channels?: '1' | '2';
  };
}

/** `clientRequest` of start (and `startParameter` of acquire). */
export interface StartClientRequest {
  readonly token?: string;
  readonly storageConfig: StorageConfig;
  readonly recordingConfig?: RecordingConfig;
  readonly recordingFileConfig?: RecordingFileConfig;
  readonly snapshotConfig?: SnapshotConfig;
  readonly extensionServiceConfig?: ExtensionServiceConfig;
  readonly appsCollection?: AppsCollection;
  readonly transcodeOptions?: TranscodeOptions;
}

export interface AcquireClientRequest {
  readonly scene?: Scene;
  readonly resourceExpiredHour?: number;
  /** Kept raw: an invalid startParameter must not fail acquire (it fails the later start instead). */
  readonly startParameter?: unknown;
  readonly excludeResourceIds?: readonly string[];
  readonly region?: Area;
}

export interface AcquireRequest {
  readonly cname: string;
  readonly uid: string;
  readonly clientRequest?: AcquireClientRequest;
}

export interface StartRequest {
  readonly cname: string;
  readonly uid: string;
  readonly clientRequest: StartClientRequest;
}

export interface UidLists {
  readonly subscribeAudioUids?: readonly string[];
  readonly unsubscribeAudioUids?: readonly string[];
  readonly subscribeVideoUids?: readonly string[];
  readonly unsubscribeVideoUids?: readonly string[];
}

export interface UpdateClientRequest {
  readonly streamSubscribe?: {
    readonly audioUidList?: Pick<UidLists, 'subscribeAudioUids' | 'unsubscribeAudioUids'>;
    readonly videoUidList?: Pick<UidLists, 'subscribeVideoUids' | 'unsubscribeVideoUids'>;
  };
  readonly webRecordingConfig?: { readonly onhold?: boolean };
  readonly rtmpPublishConfig?: { readonly outputs?: readonly RtmpOutput[] };
  /** Optional (a deliberate reading of the spec): when sent, the same storage as at start with refreshed credentials. */
  readonly storageConfig?: StorageConfig;
}

export interface UpdateRequest {
  readonly cname: string;
  readonly uid: string;
  readonly clientRequest: UpdateClientRequest;
}

export type UpdateLayoutClientRequest = LayoutFields;

export interface UpdateLayoutRequest {
  readonly cname: string;
  readonly uid: string;
  readonly clientRequest: UpdateLayoutClientRequest;
}

export interface StopRequest {
  readonly cname: string;
  readonly uid: string;
  readonly clientRequest: { readonly async_stop?: boolean };
}
