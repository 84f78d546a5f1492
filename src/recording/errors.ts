/**
 * The one catalogue of every failure the recording API answers. Gateway failures have a `message` body (as the
 * hosted gateway does); service failures have `{code, reason}` plus the identifiers known at that point.
 * docs/errors.md lists the same entries; errors.test.ts keeps the two in step. `DOMAIN_ERRORS` is the one place
 * where the control plane's named refusals meet this catalogue.
 */
import {
  AlreadyStartedError,
  LaunchFailedError,
  LayoutNotSupportedError,
  ModeMismatchError,
  NoRecorderFitsError,
  RecorderRefusedError,
  RecorderUnavailableError,
  RecordingRefusal,
  ResourceExpiredError,
  ResourceMismatchError,
  SessionNotFoundError,
  SessionStoppingError,
  StartParameterMismatchError,
  TaskConflictError,
  TooManyTasksError,
  UnknownResourceError,
} from './lifecycle/errors.ts';
import { ValidationError } from './validation/index.ts';
import type { GatewayErrorBody, ServiceErrorBody } from './api/schemas.ts';

export interface GatewayErrorSpec {
  readonly kind: 'gateway';
  readonly http: number;
  readonly message: string;
}

export interface ServiceErrorSpec {
  readonly kind: 'service';
  readonly http: number;
  readonly code: number;
  /** Fixed reason; entries marked `null` take a reason naming the field and rule at the throw site. */
  readonly reason: string | null;
}

const gateway = (http: number, message: string): GatewayErrorSpec => ({ kind: 'gateway', http, message });
const service = (http: number, code: number, reason: string | null): ServiceErrorSpec => ({
  kind: 'service',
  http,
  code,
  reason,
});

export const ERRORS = Object.freeze({
  unauthorized: gateway(401, 'Unauthorized'),
  invalidCredentials: gateway(401, 'Invalid authentication credentials'),
  invalidAppId: gateway(400, 'appid is invalid'),
  noRoute: gateway(404, 'no Route matched with those values'),
  rateLimited: gateway(429, 'API rate limit exceeded'),

  invalidParameter: service(400, 2, null),
  requestHashMismatch: service(400, 2, 'request_hash mismatch!'),
  badRequestFormat: service(400, 8, null),
  bodyTooLarge: service(413, 8, null),
  uriTooLong: service(414, 8, null),
  alreadyStarted: service(201, 7, 'already started'),
  invalidOperation: service(400, 49, 'invalid operation'),
  uploadTimeout: service(206, 50, 'upload timeout'),
  taskConflict: service(400, 53, 'task conflict'),
  vendorOverLoad: service(400, 406, 'vendor_over_load'),
  resourceMismatch: service(400, 432, 'resource id does not match appid, cname or uid'),
  resourceExpired: service(400, 433, 'resource expired'),
  noRecordedData: service(206, 435, 'no recorded data'),
  workerNotFound: service(404, 404, 'failed to find worker'),
  internalError: service(500, 500, 'internal_error'),
  allocateFailed: service(500, 502, 'Failed to allocate worker'),
  resourceInvalid: service(400, 1001, 'resource id cannot be parsed'),
} satisfies Record<string, GatewayErrorSpec | ServiceErrorSpec>);

export type ErrorKey = keyof typeof ERRORS;
type ServiceKey = { [K in ErrorKey]: (typeof ERRORS)[K] extends ServiceErrorSpec ? K : never }[ErrorKey];

/** Identifiers echoed beside code/reason, as observed on the hosted service. */
export interface Echo {
  cname?: string | undefined;
  uid?: string | undefined;
  resourceId?: string | undefined;
  sid?: string | undefined;
}

/** Thrown anywhere below the routes; the API error handler turns it into the catalogue's status and body. */
export class RecordingApiError extends Error {
  override readonly name = 'RecordingApiError';
  constructor(
    readonly key: ErrorKey,
    readonly detail?: string,
    readonly echo: Echo = {},
    /** Seconds a client should wait before trying again (`Retry-After`), on refusals that pass. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail ?? key);
  }
}

/**
 * Each domain failure and its catalogue entry. Entries whose reason is `null` take the error's message, which
 * names the field and rule (`mode: ...`, or a ValidationError's `path: rule`).
 */
export const DOMAIN_ERRORS: readonly (readonly [abstract new (...args: never[]) => Error, ServiceKey])[] = [
  [ValidationError, 'invalidParameter'],
  [ModeMismatchError, 'invalidParameter'],
  [LayoutNotSupportedError, 'invalidParameter'],
  [RecorderUnavailableError, 'invalidParameter'],
  [NoRecorderFitsError, 'invalidParameter'],
  [RecorderRefusedError, 'invalidParameter'],
  [StartParameterMismatchError, 'requestHashMismatch'],
  [AlreadyStartedError, 'alreadyStarted'],
  [SessionStoppingError, 'invalidOperation'],
  [TaskConflictError, 'taskConflict'],
  [TooManyTasksError, 'vendorOverLoad'],
  [ResourceMismatchError, 'resourceMismatch'],
  [ResourceExpiredError, 'resourceExpired'],
  [SessionNotFoundError, 'workerNotFound'],
  [LaunchFailedError, 'allocateFailed'],
  [UnknownResourceError, 'resourceInvalid'],
];

/**
 * The catalogue error for a domain failure, echoing the refusal's own subject where it names an identifier and
 * else the identifier the request named (a query of an unknown resource echoes the resourceId it asked for);
 * undefined for anything else (an unexpected fault).
 */
export function fromDomainError(err: unknown, requestEcho: Echo): RecordingApiError | undefined {
  for (const [type, key] of DOMAIN_ERRORS) {
    if (!(err instanceof type)) continue;
    const subject = err instanceof RecordingRefusal ? err.subject : undefined;
    if (!subject) return new RecordingApiError(key, err.message, requestEcho);
    const echo: Echo = {
      cname: subject.cname ?? requestEcho.cname,
      uid: subject.uid ?? requestEcho.uid,
      resourceId: subject.resourceId ?? requestEcho.resourceId,
      sid: subject.sid ?? requestEcho.sid,
    };
    return new RecordingApiError(key, err.message, echo);
  }
  return undefined;
}

/** Status and JSON body of an error; echo fields come first, as in observed responses. */
export function errorResponse(err: RecordingApiError): { status: number; body: GatewayErrorBody | ServiceErrorBody } {
  const spec = ERRORS[err.key];
  if (spec.kind === 'gateway') return { status: spec.http, body: { message: spec.message } };
  const echo: Partial<Record<keyof Echo, string>> = {};
  for (const k of ['cname', 'uid', 'resourceId', 'sid'] as const) {
    const v = err.echo[k];
    if (v !== undefined) echo[k] = v;
  }
  return { status: spec.http, body: { ...echo, code: spec.code, reason: spec.reason ?? err.detail ?? err.key } };
}
