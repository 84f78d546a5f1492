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

/**
 * A named refusal with a fixed message: `subject`, when given, names the resource or session (most of the classes
 * below; the ones without a sensible subject are simply made without one).
 */
function refusal<Name extends string>(name: Name, message: string) {
  const named = class extends RecordingRefusal {
    override readonly name = name;
    constructor(subject?: Subject) {
      super(message, subject);
    }
  };
  // The class itself carries the name too, as a declared class would (logs, the catalogue test).
  return Object.defineProperty(named, 'name', { value: name });
}

/** start: the resource was acquired for another app, cname or uid. */
export const ResourceMismatchError = refusal('ResourceMismatchError', 'the resource was acquired for another app, cname or uid');
export type ResourceMismatchError = InstanceType<typeof ResourceMismatchError>;

/** start: the resource already has a running session (`subject.sid` names it). */
export const AlreadyStartedError = refusal('AlreadyStartedError', 'the resource already has a running session');
export type AlreadyStartedError = InstanceType<typeof AlreadyStartedError>;

/** start: the resource is past its validity after acquire, or its session has ended. */
export const ResourceExpiredError = refusal('ResourceExpiredError', 'the resource expired or its session ended');
export type ResourceExpiredError = InstanceType<typeof ResourceExpiredError>;

/** start: the clientRequest differs from the startParameter given at acquire. */
export const StartParameterMismatchError = refusal('StartParameterMismatchError', "the start clientRequest differs from acquire's startParameter");
export type StartParameterMismatchError = InstanceType<typeof StartParameterMismatchError>;

/** start: no resource with this ID was ever issued (or the ID is malformed). */
export const UnknownResourceError = refusal('UnknownResourceError', 'no resource with this ID was issued');
export type UnknownResourceError = InstanceType<typeof UnknownResourceError>;

/** query/update/updateLayout/stop: no valid session for this resource, sid, cname and uid (or past its expiry). */
export const SessionNotFoundError = refusal('SessionNotFoundError', 'no valid session matches');
export type SessionNotFoundError = InstanceType<typeof SessionNotFoundError>;

/** stop/update/updateLayout while the session is already stopping. */
export const SessionStoppingError = refusal('SessionStoppingError', 'the session is stopping');
export type SessionStoppingError = InstanceType<typeof SessionStoppingError>;

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
export const LayoutNotSupportedError = refusal('LayoutNotSupportedError', 'mode: updateLayout is only supported in mix mode');
export type LayoutNotSupportedError = InstanceType<typeof LayoutNotSupportedError>;

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
export const TooManyTasksError = refusal('TooManyTasksError', "the app's concurrent task limit is reached");
export type TooManyTasksError = InstanceType<typeof TooManyTasksError>;

/** start: another live or stopping session of the app records the same cname and uid. */
export const TaskConflictError = refusal('TaskConflictError', 'another session records this cname and uid');
export type TaskConflictError = InstanceType<typeof TaskConflictError>;

/** start: the recorder could not launch the session (which has been ended). */
export const LaunchFailedError = refusal('LaunchFailedError', 'the recorder could not launch the session');
export type LaunchFailedError = InstanceType<typeof LaunchFailedError>;

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
