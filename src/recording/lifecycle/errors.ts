/**
 * The control plane's refusals, one named error per failure (thrown by the lifecycle, the service and the store).
 * They speak of resources and sessions, not HTTP: `../errors.ts` maps each to its catalogue entry in one table.
 */
import type { RecordingMode } from '../validation/types.ts';
import type { LiveTask, StoppingTask } from './task.ts';

/** The resource or session a refusal concerns, as far as it is known. */
export interface Subject {
  readonly cname?: string | undefined;
  readonly uid?: string | undefined;
  readonly resourceId?: string | undefined;
  readonly sid?: string | undefined;
}

/** The identifiers of a session. */
export function sessionSubject(task: LiveTask | StoppingTask): Subject {
  return { cname: task.resource.cname, uid: task.resource.uid, resourceId: task.resource.resourceId, sid: task.session.sid };
}

/**
 * Base of the named refusals. `subject` is set when the refusal knows better than the request which resource or
 * session it concerns (the running session's sid, the task's own cname and uid); otherwise the request's own
 * identifiers describe it.
 */
export abstract class RecordingRefusal extends Error {
  constructor(
    message: string,
    readonly subject?: Subject,
  ) {
    super(message);
  }
}

/** start: the resource was acquired for another app, cname or uid. */
export class ResourceMismatchError extends RecordingRefusal {
  override readonly name = 'ResourceMismatchError';
  constructor(subject: Subject) {
    super('the resource was acquired for another app, cname or uid', subject);
  }
}

/** start: the resource already has a running session (`subject.sid` names it). */
export class AlreadyStartedError extends RecordingRefusal {
  override readonly name = 'AlreadyStartedError';
  constructor(subject: Subject) {
    super('the resource already has a running session', subject);
  }
}

/** start: the resource is past its validity after acquire, or its session has ended. */
export class ResourceExpiredError extends RecordingRefusal {
  override readonly name = 'ResourceExpiredError';
  constructor(subject: Subject) {
    super('the resource expired or its session ended', subject);
  }
}

/** start: the clientRequest differs from the startParameter given at acquire. */
export class StartParameterMismatchError extends RecordingRefusal {
  override readonly name = 'StartParameterMismatchError';
  constructor(subject: Subject) {
    super("the start clientRequest differs from acquire's startParameter", subject);
  }
}

/** start: no resource with this ID was ever issued (or the ID is malformed). */
export class UnknownResourceError extends RecordingRefusal {
  override readonly name = 'UnknownResourceError';
  constructor() {
    super('no resource with this ID was issued');
  }
}

/** query/update/updateLayout/stop: no valid session for this resource, sid, cname and uid (or past its expiry). */
export class SessionNotFoundError extends RecordingRefusal {
  override readonly name = 'SessionNotFoundError';
  constructor(subject: Subject) {
    super('no valid session matches', subject);
  }
}

/** stop/update/updateLayout while the session is already stopping. */
export class SessionStoppingError extends RecordingRefusal {
  override readonly name = 'SessionStoppingError';
  constructor(subject: Subject) {
    super('the session is stopping', subject);
  }
}

/** The path's mode is not the one the session was started in; the message names the field and rule. */
export class ModeMismatchError extends RecordingRefusal {
  override readonly name = 'ModeMismatchError';
  constructor(
    readonly sessionMode: RecordingMode,
    subject: Subject,
  ) {
    super(`mode: must be ${sessionMode}, the mode this session was started in`, subject);
  }
}

/** updateLayout outside mix mode; the message names the field and rule. */
export class LayoutNotSupportedError extends RecordingRefusal {
  override readonly name = 'LayoutNotSupportedError';
  constructor(subject?: Subject) {
    super('mode: updateLayout is only supported in mix mode', subject);
  }
}

/** start in a mode no recorder on this server records; the message names the field and rule. */
export class RecorderUnavailableError extends RecordingRefusal {
  override readonly name = 'RecorderUnavailableError';
  constructor(readonly mode: RecordingMode) {
    super(`mode: no ${mode} recorder is available on this server`);
  }
}

/** start: no live recorder may take the session (acquire's region or excludeResourceIds); the message names the field. */
export class NoRecorderFitsError extends RecordingRefusal {
  override readonly name = 'NoRecorderFitsError';
}

/** acquire past the app's limit of concurrent tasks. */
export class TooManyTasksError extends RecordingRefusal {
  override readonly name = 'TooManyTasksError';
  constructor() {
    super("the app's concurrent task limit is reached");
  }
}

/** start: another live or stopping session of the app records the same cname and uid. */
export class TaskConflictError extends RecordingRefusal {
  override readonly name = 'TaskConflictError';
  constructor() {
    super('another session records this cname and uid');
  }
}

/** start: the recorder could not launch the session (which has been ended). */
export class LaunchFailedError extends RecordingRefusal {
  override readonly name = 'LaunchFailedError';
  constructor(subject: Subject) {
    super('the recorder could not launch the session', subject);
  }
}

/**
 * start: the recorder refused the session for a reason the request can fix (the session has been ended); the
 * message names the field and rule, e.g. a recording `uid` that a publisher in the channel already uses.
 */
export class RecorderRefusedError extends RecordingRefusal {
  override readonly name = 'RecorderRefusedError';
  constructor(
    readonly field: string,
    readonly rule: string,
    subject?: Subject,
  ) {
    super(`${field}: ${rule}`, subject);
  }
}
