/**
 * The lifecycle as pure functions of (task, event, now): each returns the next task and the effects to run, or
 * throws a named refusal (./errors.ts). Named by intent, as Egress names its transitions.
 */
import type { RecordedFile, RecorderOutcome, RecordingStatus, RtmpStatus } from '../dispatch/types.ts';
import type {
  RecordingMode,
  StartClientRequest,
  UpdateClientRequest,
  UpdateLayoutClientRequest,
} from '../validation/types.ts';
import {
  ERROR_CODE,
  ERROR_LEVEL,
  errorFields,
  EVENT_MODULE,
  EXIT_STATUS,
  RECORDER_EVENTS,
  RECORDING_STATUS,
  SERVICE_EVENTS,
} from '../vocabulary/index.ts';
import { Effects, type Effect } from './effects.ts';
import {
  AlreadyStartedError,
  LayoutNotSupportedError,
  ModeMismatchError,
  ResourceExpiredError,
  ResourceMismatchError,
  SessionNotFoundError,
  SessionStoppingError,
  sessionSubject,
  StartParameterMismatchError,
} from './errors.ts';
import {
  hasSession,
  isEnded,
  type EndedTask,
  type LiveTask,
  type Session,
  type StoppingTask,
  type Task,
} from './task.ts';

export interface Outcome<T extends Task = Task> {
  readonly task: T;
  readonly effects: readonly Effect[];
}

const HOUR_MS = 3600 * 1000;

export interface Identity {
  readonly appId: string;
  readonly cname: string;
  readonly uid: string;
}

/**
 * Refusals of start that need only the stored resource: wrong owner, used twice, expired. A resource whose last
 * start failed to launch can be started again (a new sid) until it expires.
 */
export function assertStartable(task: Task, who: Identity, now: number): void {
  const r = task.resource;
  const subject = { cname: who.cname, uid: who.uid, resourceId: r.resourceId };
  if (r.appId !== who.appId || r.cname !== who.cname || r.uid !== who.uid) throw new ResourceMismatchError(subject);
  if (hasSession(task)) throw new AlreadyStartedError({ ...subject, sid: task.session.sid });
  if ((isEnded(task) && task.launchFailed !== true) || now >= r.expiresAt) throw new ResourceExpiredError(subject);
}

export interface StartEvent extends Identity {
  readonly sid: string;
  readonly mode: RecordingMode;
  readonly clientRequest: StartClientRequest;
  /** Canonical JSON of the raw clientRequest as sent. */
  readonly canonical: string;
}

export function startSession(task: Task, ev: StartEvent, now: number): Outcome<LiveTask> {
  assertStartable(task, ev, now);
  const r = task.resource;
  if (r.startParameter !== undefined && r.startParameter !== ev.canonical) {
    throw new StartParameterMismatchError({ cname: ev.cname, uid: ev.uid, resourceId: r.resourceId });
  }
  const web = ev.clientRequest.extensionServiceConfig?.extensionServices;
  const webParam = web?.find((s) => s.serviceName === 'web_recorder_service');
  const rtmp = web?.find((s) => s.serviceName === 'rtmp_publish_service');
  const apiExpiresAt = now + r.resourceExpiredHour * HOUR_MS;
  const recordingEndsAt =
    webParam?.serviceName === 'web_recorder_service' ? now + webParam.serviceParam.maxRecordingHour * HOUR_MS : undefined;
  const tc = ev.clientRequest.recordingConfig?.transcodingConfig;
  const session: Session = {
    sid: ev.sid,
    mode: ev.mode,
    clientRequest: ev.clientRequest,
    startedAt: now,
    apiExpiresAt,
    recordingEndsAt,
    status: RECORDING_STATUS.notStarted,
    files: [],
    sliceStartTime: undefined,
    onhold:
      webParam?.serviceName === 'web_recorder_service'
        ? webParam.serviceParam.onhold === true
        : ev.clientRequest.recordingConfig?.onhold === true,
    rtmp:
      rtmp?.serviceName === 'rtmp_publish_service'
        ? rtmp.serviceParam.outputs.map((o) => ({ rtmpUrl: o.rtmpUrl, status: 'connecting' as const }))
        : [],
    layout: tc,
  };
  return {
    task: { kind: 'live', resource: r, session },
    effects: [Effects.launch(false), Effects.schedule(dueAt(session))],
  };
}

/** When the control plane ends a live session by itself: resourceExpiredHour, or (web) maxRecordingHour. */
function dueAt(s: Session): number {
  return Math.min(s.apiExpiresAt, s.recordingEndsAt ?? Infinity);
}

/** After a restart, a live session goes back to a recorder (resumed) with its expiry timer re-armed. */
export function resumeSession(task: Task): Outcome {
  if (task.kind !== 'live') return { task, effects: [] };
  return { task, effects: [Effects.launch(true), Effects.schedule(dueAt(task.session))] };
}

export interface SessionRef {
  readonly appId: string;
  readonly sid: string;
  readonly cname?: string | undefined;
  readonly uid?: string | undefined;
}

/** query/update/updateLayout/stop find their session here (an unknown resource is echoed as the request named it). */
export function accessSession(task: Task | undefined, ref: SessionRef, now: number): LiveTask | StoppingTask {
  if (
    !task ||
    !hasSession(task) ||
    task.resource.appId !== ref.appId ||
    task.session.sid !== ref.sid ||
    now >= task.session.apiExpiresAt ||
    (ref.cname !== undefined && ref.cname !== task.resource.cname) ||
    (ref.uid !== undefined && ref.uid !== task.resource.uid)
  ) {
    throw new SessionNotFoundError({ cname: ref.cname, uid: ref.uid, resourceId: task?.resource.resourceId, sid: ref.sid });
  }
  return task;
}

/** The mode a call names (its path) must be the one the session was started in. */
export function assertMode(task: LiveTask | StoppingTask, mode: RecordingMode): void {
  if (task.session.mode !== mode) throw new ModeMismatchError(task.session.mode, sessionSubject(task));
}


function withSession<T extends LiveTask | StoppingTask>(task: T, patch: Partial<Session>): T {
  return { ...task, session: { ...task.session, ...patch } };
}

export function requestStop(task: LiveTask | StoppingTask, now: number): Outcome<StoppingTask> {
  if (task.kind === 'stopping') throw new SessionStoppingError(sessionSubject(task));
  return {
    task: { ...withSession(task, { status: RECORDING_STATUS.recordingStopped }), kind: 'stopping', stopRequestedAt: now, reason: 'stopped' },
    effects: [Effects.stopRecorder('stopped')],
  };
}

export function updateSession(task: LiveTask | StoppingTask, req: UpdateClientRequest): Outcome<LiveTask> {
  if (task.kind === 'stopping') throw new SessionStoppingError(sessionSubject(task));
  const patch: { onhold?: boolean; rtmp?: Session['rtmp'] } = {};
  if (req.webRecordingConfig?.onhold !== undefined) patch.onhold = req.webRecordingConfig.onhold;
  if (req.recordingConfig?.onhold !== undefined) patch.onhold = req.recordingConfig.onhold;
  if (req.rtmpPublishConfig?.outputs) {
    patch.rtmp = req.rtmpPublishConfig.outputs.map((o) => ({ rtmpUrl: o.rtmpUrl, status: 'connecting' as const }));
  }
  return { task: withSession(task, patch), effects: [Effects.update(req)] };
}

export function updateLayout(task: LiveTask | StoppingTask, req: UpdateLayoutClientRequest): Outcome<LiveTask> {
  if (task.session.mode !== 'mix') throw new LayoutNotSupportedError(sessionSubject(task));
  if (task.kind === 'stopping') throw new SessionStoppingError(sessionSubject(task));
  // Each call replaces the whole layout: omitted fields revert to their defaults.
  return { task: withSession(task, { layout: req }), effects: [Effects.updateLayout(req)] };
}

/** A clock timer fired: resourceExpiredHour or (web) maxRecordingHour reached. */
export function timerFired(task: Task, now: number): Outcome {
  if (task.kind !== 'live') return { task, effects: [] };
  const due = dueAt(task.session);
  if (now < due) return { task, effects: [Effects.schedule(due)] };
  return {
    task: { ...withSession(task, { status: RECORDING_STATUS.recordingStopped }), kind: 'stopping', stopRequestedAt: now, reason: 'expired' },
    effects: [Effects.stopRecorder('expired')],
  };
}

export function reportStatus(task: Task, status: RecordingStatus): Outcome {
  if (!hasSession(task)) return { task, effects: [] };
  // While stopping only the stop progression (recordingStopped and on, exitedAbnormally) is taken; a late
  // firstFileUploaded must not hide the stop.
  if (task.kind === 'stopping' && status !== RECORDING_STATUS.exitedAbnormally && status < RECORDING_STATUS.recordingStopped) {
    return { task, effects: [] };
  }
  return { task: withSession(task, { status }), effects: [] };
}

export function reportFiles(task: Task, files: readonly RecordedFile[]): Outcome {
  if (!hasSession(task)) return { task, effects: [] };
  return { task: withSession(task, { files: [...files] }), effects: [] };
}

export function reportSliceStart(task: Task, ms: number): Outcome {
  if (!hasSession(task)) return { task, effects: [] };
  return { task: withSession(task, { sliceStartTime: ms }), effects: [] };
}

export function reportRtmp(task: Task, rtmpUrl: string, status: RtmpStatus): Outcome {
  if (!hasSession(task)) return { task, effects: [] };
  const rtmp = task.session.rtmp.some((o) => o.rtmpUrl === rtmpUrl)
    ? task.session.rtmp.map((o) => (o.rtmpUrl === rtmpUrl ? { rtmpUrl, status } : o))
    : [...task.session.rtmp, { rtmpUrl, status }];
  return { task: withSession(task, { rtmp }), effects: [] };
}

export interface FinishEvent extends RecorderOutcome {
  readonly files?: readonly RecordedFile[];
}

/** The session is over (stop done, idle exit, recorder error, expiry). Emits sessionExit. */
export function finish(task: Task, ev: FinishEvent, now: number): Outcome {
  if (!hasSession(task)) return { task, effects: [] };
  const abnormal = ev.reason === 'error';
  const session: Session = { ...task.session, status: abnormal ? RECORDING_STATUS.exitedAbnormally : RECORDING_STATUS.readyToExit, ...(ev.files ? { files: [...ev.files] } : {}) };
  const ended: EndedTask = {
    kind: 'ended',
    resource: task.resource,
    session,
    endedAt: now,
    reason: ev.reason,
    uploadingStatus: ev.uploadingStatus,
    recordedAnything: ev.recordedAnything,
  };
  return {
    task: ended,
    effects: [
      Effects.emit(SERVICE_EVENTS.sessionExit, { exitStatus: abnormal ? EXIT_STATUS.abnormal : EXIT_STATUS.normal }),
      Effects.release(),
    ],
  };
}

/** The recorder could not take the session: it ends as an error (launchFailed, before sessionExit). */
export function launchFailed(task: Task, now: number): Outcome {
  const out = finish(task, { reason: 'error', uploadingStatus: 'unknown', recordedAnything: false }, now);
  if (out.task === task || out.task.kind !== 'ended') return out;
  const ended: EndedTask = { ...out.task, launchFailed: true };
  const failed = Effects.emit(
    RECORDER_EVENTS.error,
    errorFields(EVENT_MODULE.service, ERROR_LEVEL.fatal, ERROR_CODE.launchFailed, 'failed to start the recording service'),
  );
  return { task: ended, effects: [failed, ...out.effects] };
}

/** A synchronous stop waited its bound for the uploads (uploadTimedOut); the stop itself goes on. */
export function uploadTimedOut(task: Task): Outcome {
  const timedOut = Effects.emit(
    RECORDER_EVENTS.error,
    errorFields(EVENT_MODULE.service, ERROR_LEVEL.major, ERROR_CODE.uploadTimedOut, 'timeout uploading recorded files'),
  );
  return { task, effects: [timedOut] };
}
