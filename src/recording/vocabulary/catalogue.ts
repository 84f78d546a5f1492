/**
 * The one catalogue of the recording service's webhook vocabulary: events (type, service type and `msgName` in one
 * row), the codes inside them, and the session statuses, each under a name. The control plane owns it; recorders
 * speak it (through `recording/dispatch`). docs/notify.md ("Recorder events") lists the same rows; a test keeps the
 * two equal. No event, code or status number is written anywhere else.
 */

export interface EventKind {
  readonly eventType: number;
  readonly serviceType: number;
  readonly msgName: string;
}

/** Service types: 0 cloud recording service, 1 recorder, 2 uploader, 6 web page recorder. */
export const RECORDER_EVENTS = Object.freeze({
  error: { eventType: 1, serviceType: 0, msgName: 'cloud_recording_error' },
  warning: { eventType: 2, serviceType: 0, msgName: 'cloud_recording_warning' },
  fileInfos: { eventType: 4, serviceType: 0, msgName: 'cloud_recording_file_infos' },
  uploaderStarted: { eventType: 30, serviceType: 2, msgName: 'uploader_started' },
  uploaded: { eventType: 31, serviceType: 2, msgName: 'uploaded' },
  backuped: { eventType: 32, serviceType: 2, msgName: 'backuped' },
  uploadingProgress: { eventType: 33, serviceType: 2, msgName: 'uploading_progress' },
  recorderStarted: { eventType: 40, serviceType: 1, msgName: 'recorder_started' },
  recorderLeave: { eventType: 41, serviceType: 1, msgName: 'recorder_leave' },
  sliceStart: { eventType: 42, serviceType: 1, msgName: 'recorder_slice_start' },
  audioStreamState: { eventType: 43, serviceType: 1, msgName: 'recorder_audio_stream_state_changed' },
  videoStreamState: { eventType: 44, serviceType: 1, msgName: 'recorder_video_stream_state_changed' },
  snapshotFile: { eventType: 45, serviceType: 1, msgName: 'recorder_snapshot_file' },
  webRecorderStarted: { eventType: 70, serviceType: 6, msgName: 'web_recorder_started' },
  webRecorderStopped: { eventType: 71, serviceType: 6, msgName: 'web_recorder_stopped' },
  webRecorderCapabilityLimit: { eventType: 72, serviceType: 6, msgName: 'web_recorder_capability_limit' },
  webRecorderReload: { eventType: 73, serviceType: 6, msgName: 'web_recorder_reload' },
  transcoderStarted: { eventType: 80, serviceType: 0, msgName: 'transcoder_started' },
  transcoderCompleted: { eventType: 81, serviceType: 0, msgName: 'transcoder_completed' },
  rtmpPublishStatus: { eventType: 100, serviceType: 6, msgName: 'rtmp_publish_status' },
  postponeTranscodeFinalResult: { eventType: 1001, serviceType: 0, msgName: 'postpone_transcode_final_result' },
  // reeltime's extension (pause and resume); numbers from 1100 up, clear of the hosted service's.
  recorderOnHold: { eventType: 1100, serviceType: 1, msgName: 'recorder_onhold' },
  recorderResumed: { eventType: 1101, serviceType: 1, msgName: 'recorder_resumed' },
} satisfies Record<string, EventKind>);

export type RecorderEventName = keyof typeof RECORDER_EVENTS;

/** Events the control plane sends itself (a recorder never does); event 1 with `module` service is its too. */
export const SERVICE_EVENTS = Object.freeze({
  sessionExit: { eventType: 11, serviceType: 0, msgName: 'session_exit' },
  sessionFailover: { eventType: 12, serviceType: 0, msgName: 'session_failover' },
} satisfies Record<string, EventKind>);

export type ServiceEventName = keyof typeof SERVICE_EVENTS;

/** `module` of events 1 and 2: which part of the service speaks. */
export const EVENT_MODULE = Object.freeze({ recorder: 0, uploader: 1, service: 2, webRecorder: 6 });

/** `errorLevel` of event 1 (5 = fatal: the session ends). */
export const ERROR_LEVEL = Object.freeze({ debug: 1, minor: 2, medium: 3, major: 4, fatal: 5 });

/** `errorCode` of event 1. Uploader and service codes are the hosted service's; recorder codes from 1100 up are ours. */
export const ERROR_CODE = Object.freeze({
  storageConfig: 32,
  uploadFailed: 47,
  uploadTimedOut: 50,
  launchFailed: 52,
  tokenExpired: 109,
  tokenInvalid: 110,
  slicerStopped: 1103,
  postProcessFailed: 1105,
});

/** `warnCode` of event 2. */
export const WARN_CODE = Object.freeze({
  reUploading: 31,
  backupSpool: 32,
  profileMismatch: 1101,
  subscribeFailed: 1102,
  snapshotUploadFailed: 1104,
  backgroundImageFailed: 1106,
  uidTakenByPublisher: 1107,
});

/** `leaveCode` of event 41 (a bit field upstream; a recorder sends one of these). */
export const LEAVE_CODE = Object.freeze({ initFailed: 0, stopped: 2, idle: 4, ignore: 8, clientLeave: 16 });

/** `exitStatus` of event 11. */
export const EXIT_STATUS = Object.freeze({ normal: 0, abnormal: 1 });

/** `status` of events 30 (`uploaderStarted`), 31/32 (`uploaded`, `backuped`) and 40 (`recorderStarted`). */
export const EVENT_STATUS = Object.freeze({ ok: 0 } as const);

/** `state` of events 43/44 (`audioStreamState`, `videoStreamState`). */
export const STREAM_STATE = Object.freeze({ receiving: 0, stopped: 1 } as const);
export type StreamState = (typeof STREAM_STATE)[keyof typeof STREAM_STATE];

/** `code` and `message` of event 71 (`webRecorderStopped`), docs/recording-web.md "Stop codes and events". */
export const WEB_STOP = Object.freeze({
  ok: { code: 0, message: 'ok' },
  maxRecordingHour: { code: 1, message: 'max_recording_hour' },
  capabilityLimit: { code: 2, message: 'capability_limit' },
  startEngineFailed: { code: 3, message: 'start_engine_failed' },
  pageLoadTimeout: { code: 4, message: 'page_load_timeout' },
  accessUrlFailed: { code: 5, message: 'access_url_failed' },
  recorderError: { code: 6, message: 'recorder_error' },
} as const);
/** One of WEB_STOP. */
export interface WebStop {
  readonly code: number;
  readonly message: string;
}

/** Session statuses (query's `serverResponse.status`, spec "Status codes in query responses"). */
export const RECORDING_STATUS = Object.freeze({
  notStarted: 0,
  initialized: 1,
  recorderStarting: 2,
  uploaderReady: 3,
  recorderReady: 4,
  firstFileUploaded: 5,
  recordingStopped: 6,
  componentsStopped: 7,
  readyToExit: 8,
  exitedAbnormally: 20,
} as const);

export type RecordingStatusName = keyof typeof RECORDING_STATUS;
/** `serverResponse.status` of query. */
export type RecordingStatus = (typeof RECORDING_STATUS)[RecordingStatusName];
export const RECORDING_STATUSES: readonly RecordingStatus[] = Object.freeze(Object.values(RECORDING_STATUS));
/** The statuses a recorder reports (0 is the control plane's own, before any recorder). */
export type RecorderStatusName = Exclude<RecordingStatusName, 'notStarted'>;

export type EventModule = (typeof EVENT_MODULE)[keyof typeof EVENT_MODULE];
export type ErrorLevel = (typeof ERROR_LEVEL)[keyof typeof ERROR_LEVEL];

/** The fields of an event 1 (`error`) after its msgName. */
export function errorFields(module: EventModule, errorLevel: ErrorLevel, errorCode: number, errorMsg: string) {
  return { module, errorLevel, errorCode, stat: 0, errorMsg } as const;
}
