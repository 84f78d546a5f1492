/**
 * Every HTTP body of the recording API's successful (and 206) answers, built from the service's results (spec
 * "query-response", "stop-response"). Never include clientRequest.
 */
import type { RecordedFile, UploadingStatus } from '../dispatch/types.ts';
import { errorResponse, RecordingApiError } from '../errors.ts';
import type { EndedTask, IssuedTask, LiveTask, Session, StoppingTask, Task } from '../lifecycle/task.ts';
import type { StopOutcome } from '../service.ts';
import { RECORDING_STATUS } from '../vocabulary/index.ts';
import type {
  AcquireResponse,
  GatewayErrorBody,
  FileEntry,
  QueryResponse,
  QueryServerResponse,
  QueryWebService,
  ServiceErrorBody,
  SessionResponse,
  StopResponse,
  StopServerResponse,
  WebRecorderPayload,
} from './schemas.ts';

export interface Answer {
  readonly status: number;
  readonly body: StopResponse | ServiceErrorBody | GatewayErrorBody;
}

type SessionTask = LiveTask | StoppingTask | EndedTask;

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** fileList entry of the json form; sliceStartTime in seconds as the spec's table says. */
function fileEntry(f: RecordedFile): FileEntry {
  return {
    fileName: f.fileName,
    trackType: f.trackType,
    uid: f.uid,
    mixedAllUser: f.mixedAllUser,
    isPlayable: f.isPlayable,
    sliceStartTime: seconds(f.sliceStartTime),
  };
}

function hasScreenshots(s: Session): boolean {
  return s.mode === 'individual' && s.clientRequest.snapshotConfig !== undefined;
}

/** `string` only for mix with HLS alone; `json` otherwise. */
function fileListFields(s: Session): { fileListMode: 'string'; fileList: string } | { fileListMode: 'json'; fileList: FileEntry[] } {
  const av = s.clientRequest.recordingFileConfig?.avFileType ?? ['hls'];
  if (s.mode === 'mix' && !av.includes('mp4')) {
    const m3u8 = s.files.find((f) => f.fileName.endsWith('.m3u8')) ?? s.files[0];
    return { fileListMode: 'string', fileList: m3u8?.fileName ?? '' };
  }
  return { fileListMode: 'json', fileList: s.files.map(fileEntry) };
}

function webState(t: SessionTask): 'init' | 'inProgress' | 'exit' {
  if (t.kind === 'ended') return 'exit';
  const s = t.session.status;
  if (s >= RECORDING_STATUS.componentsStopped) return 'exit';
  return s >= RECORDING_STATUS.firstFileUploaded ? 'inProgress' : 'init';
}

function webRecorderPayload(t: SessionTask): WebRecorderPayload {
  return {
    fileList: t.session.files.map((f) => ({ filename: f.fileName, sliceStartTime: seconds(f.sliceStartTime) })),
    onhold: t.session.onhold,
    state: webState(t),
  };
}

/**
 * Individual and mix modes report their pause (reeltime's extension, docs/recording-api.md "Pause and resume") as
 * `onhold: true`, and only while on hold: the hosted service's response forms stay exactly as they are otherwise.
 */
function recordingHold(s: Session): { onhold?: true } {
  return s.mode !== 'web' && s.onhold ? { onhold: true } : {};
}

function ids(t: Task & { session: Session }) {
  return { resourceId: t.resource.resourceId, sid: t.session.sid, cname: t.resource.cname, uid: t.resource.uid };
}

function queryBody(t: LiveTask | StoppingTask): QueryResponse {
  const s = t.session;
  let serverResponse: QueryServerResponse;
  if (s.mode === 'web') {
    const services: QueryWebService[] = [{ serviceName: 'web_recorder_service', payload: webRecorderPayload(t) }];
    if (s.rtmp.length > 0) {
      services.push({
        serviceName: 'rtmp_publish_service',
        payload: { outputs: s.rtmp.map((o) => ({ rtmpUrl: o.rtmpUrl, status: o.status })), state: webState(t) },
      });
    }
    serverResponse = { status: s.status, extensionServiceState: services };
  } else if (hasScreenshots(s)) {
    serverResponse = { status: s.status, sliceStartTime: s.sliceStartTime ?? 0, ...recordingHold(s) };
  } else {
    serverResponse = { status: s.status, ...fileListFields(s), sliceStartTime: s.sliceStartTime ?? 0, ...recordingHold(s) };
  }
  return { ...ids(t), serverResponse };
}

/**
 * Stop body. Web mode lists `upload_service` and `web_recorder_service`; the spec names the inner object
 * `playload` while current hosted docs say `payload`, so both keys carry the same object.
 */
function stopBody(t: SessionTask, uploadingStatus: UploadingStatus): StopResponse {
  const s = t.session;
  let serverResponse: StopServerResponse;
  if (s.mode === 'web') {
    const upload = { uploadingStatus };
    const web = webRecorderPayload(t);
    serverResponse = {
      extensionServiceState: [
        { serviceName: 'upload_service', payload: upload, playload: upload },
        { serviceName: 'web_recorder_service', payload: web, playload: web },
      ],
    };
  } else if (hasScreenshots(s)) {
    serverResponse = { uploadingStatus };
  } else {
    serverResponse = { ...fileListFields(s), uploadingStatus };
  }
  return { ...ids(t), serverResponse };
}

/** acquire: the new resource. */
export function acquireBody(t: IssuedTask): AcquireResponse {
  return { cname: t.resource.cname, uid: t.resource.uid, resourceId: t.resource.resourceId };
}

/** start, update and updateLayout: the session's identifiers. */
export function sessionBody(t: LiveTask | StoppingTask): SessionResponse {
  return { cname: t.resource.cname, uid: t.resource.uid, resourceId: t.resource.resourceId, sid: t.session.sid };
}

// Tasks are immutable and replaced on every change, so a polled session is serialised once per change.
const queryJsonCache = new WeakMap<Task, string>();

/** The query body, serialised. */
export function queryJson(t: LiveTask | StoppingTask): string {
  let json = queryJsonCache.get(t);
  if (json === undefined) {
    json = JSON.stringify(queryBody(t));
    queryJsonCache.set(t, json);
  }
  return json;
}

/** Status and body of a stop: 200 with the file list, or 206 code 50 (upload timeout) / code 435 (nothing recorded). */
export function stopAnswer(o: StopOutcome): Answer {
  const ids = { cname: o.task.resource.cname, uid: o.task.resource.uid, resourceId: o.task.resource.resourceId, sid: o.task.session.sid };
  switch (o.kind) {
    case 'accepted':
      return { status: 200, body: stopBody(o.task, 'unknown') };
    case 'timedOut':
      return errorResponse(new RecordingApiError('uploadTimeout', undefined, ids));
    case 'ended':
      if (!o.task.recordedAnything) return errorResponse(new RecordingApiError('noRecordedData', undefined, ids));
      return { status: 200, body: stopBody(o.task, o.task.uploadingStatus) };
  }
}
