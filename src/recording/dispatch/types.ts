import type { MixLayoutSettings } from '../../media/mix/index.ts';
import type { StorageConfig, UploadingStatus } from '../../storage/index.ts';
import type { Area, RecordingMode } from '../validation/types.ts';
import type { RecorderSettings } from './settings/index.ts';
import type { RecordingStatus } from '../vocabulary/index.ts';
import type { RecorderUpdate } from './subscription.ts';

export type { RecordingMode } from '../validation/types.ts';
/** `serverResponse.status` of query: named in the vocabulary (RECORDING_STATUS). */
export type { RecordingStatus } from '../vocabulary/index.ts';

export type TrackType = 'audio' | 'video' | 'audio_and_video';
/** Whether a session's files reached the bucket: the storage module's verdict, passed through unchanged. */
export type { UploadingStatus } from '../../storage/index.ts';

/** One recorded file as the recorder reports it; query/stop derive their fileList from these. */
export interface RecordedFile {
  /** Object key relative to the bucket, fileNamePrefix included (M3U8, MP4 or, in web mode, the slice file). */
  readonly fileName: string;
  readonly trackType: TrackType;
  /** Recorded user; "0" in mix mode. */
  readonly uid: string;
  readonly mixedAllUser: boolean;
  readonly isPlayable: boolean;
  /** Start of the file, Unix milliseconds (the API converts to the spec's seconds where needed). */
  readonly sliceStartTime: number;
}

export type RtmpStatus = 'connecting' | 'publishing' | 'onhold' | 'disconnected';

/**
 * Everything a recorder needs to run one session, built at the dispatch boundary from the stored task
 * (recording-task.ts): who it is, where its files go, the token it joins with, and its mode's settings. The raw
 * start request stays with the control plane.
 */
export interface RecordingTask {
  readonly appId: string;
  readonly cname: string;
  /** The uid the recorder joins with (a new random one after a failover). */
  readonly uid: string;
  readonly sid: string;
  readonly resourceId: string;
  /** Where the files go (start's `storageConfig`); holds credentials: never log it. */
  readonly storage: StorageConfig;
  /** RTC token the recorder joins with (start's, or one for the new uid after a failover); a secret. */
  readonly token: string | undefined;
  /** The mode's settings (`settings.mode` is the session's mode), built by `recorderSettings`. */
  readonly settings: RecorderSettings;
  /** Unix ms of the start call. */
  readonly startedAt: number;
  /**
   * True when the session is handed over again after a process restart; files reported before the restart
   * are in `previousFiles`, and new files should carry a `bak<n>_` prefix as after a failover.
   */
  readonly resumed: boolean;
  readonly previousFiles: readonly RecordedFile[];
  /**
   * Present when another recorder may take the session over (queue-backed dispatch): the recorder hands no file to
   * the uploader once `holds()` is false, so two recorders never write one session (docs/deployment.md, fencing).
   */
  readonly fence?: WriteFence;
}

/** Whether this recorder still holds its session's lease; checked synchronously before every write. */
export interface WriteFence {
  holds(): boolean;
}

export type EndReason = 'stopped' | 'idle' | 'error' | 'expired';

export interface RecorderOutcome {
  readonly reason: EndReason;
  readonly uploadingStatus: UploadingStatus;
  readonly recordedAnything: boolean;
  /** Human-readable cause for `error` (no secrets). */
  readonly message?: string;
}

/** What a recorder tells the control plane; every call is persisted (status, files) or forwarded (events). */
export interface RecorderReport {
  status(status: RecordingStatus): void;
  /** The complete current file list (replaces the previous one). */
  files(files: readonly RecordedFile[]): void;
  /** Start of the current recording, Unix ms (query's `serverResponse.sliceStartTime`). */
  sliceStartTime(ms: number): void;
  /** Web mode with CDN push: state of each output. */
  rtmpStatus?(rtmpUrl: string, status: RtmpStatus): void;
  /** A recorder/uploader/web-recorder event (serviceType 1, 2, 4, 6 ...), forwarded to the notifier. */
  event(eventType: number, serviceType: number, details: { readonly msgName: string; readonly [k: string]: unknown }): void;
  /** The recorder ended on its own (idle, error, maxRecordingHour); not called for an API stop. */
  ended(outcome: RecorderOutcome): void;
}

export interface StopResult {
  readonly uploadingStatus: UploadingStatus;
  readonly files: readonly RecordedFile[];
  readonly recordedAnything: boolean;
}

/** Control of one running session. */
export interface RecorderHandle {
  update(change: RecorderUpdate): Promise<void>;
  /** Mix mode only: the new layout, complete (`mixLayoutSettings` of the updateLayout request). */
  updateLayout?(layout: MixLayoutSettings): Promise<void>;
  /** Leaves the channel and finishes uploads; resolves when every file is in the bucket (or backed up). */
  stop(): Promise<StopResult>;
}

/** One implementation per mode (recorders/individual, recorders/mix, recorders/web). */
export interface Recorder {
  readonly mode: RecordingMode;
  /** Resolves once the session is launched (not when recording has begun: that is reported via status). */
  start(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle>;
}

/**
 * Serialises the runtime's work per resource ID: in this process (recording/lock.ts) or across processes
 * (bullmq/lock.ts, provided by the dispatcher that spreads sessions over processes).
 */
export interface ResourceLock {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/** Chooses where a session runs. In-process now; a queue-backed one (Redis) can implement the same. */
export interface Dispatcher {
  supports(mode: RecordingMode): boolean;
  launch(task: RecordingTask, report: RecorderReport): Promise<RecorderHandle>;
  /**
   * Control of a session another process launched (queue-backed dispatch); absent in-process, where only the
   * launching process holds sessions.
   */
  attach?(task: RecordingTask): RecorderHandle;
  /**
   * Whether a recorder holds the live session now; false during a failover switch (query, update and stop then
   * answer 404, as the hosted service does). Absent in-process, where the session is always held.
   */
  holds?(resourceId: string): Promise<boolean>;
  /**
   * Why no recorder may take a session of this resource (acquire's `region` and `excludeResourceIds` against the
   * recorders' labels), naming the field; undefined when one may. Absent in-process, where there is one recorder.
   */
  unplaceable?(resource: { readonly region: Area | undefined; readonly excludeResourceIds: readonly string[] }): Promise<string | undefined>;
  /** True when sessions survive this process on their own (queue-backed): restart recovery is then not run here. */
  readonly recoversItself?: boolean;
  close(): Promise<void>;
}
