import type { GatewayErrorBody, ServiceErrorBody } from './types.gen.ts';

/** Any answer that is not the operation's success body. `status` is the HTTP status; `body` the parsed answer. */
export class RecordingError extends Error {
  override readonly name: string = 'RecordingError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Refused by the gateway before the service saw the request: bad credentials (401), unknown app (400), rate limit
 * (429), unknown route (404). The body is `{ message }` only.
 */
export class GatewayError extends RecordingError {
  override readonly name = 'GatewayError';
  constructor(
    status: number,
    override readonly body: GatewayErrorBody,
  ) {
    super(status, body, `${status} ${body.message}`);
  }
}

/**
 * Refused or cut short by the service: `code` and `reason` (docs/errors.md), plus the identifiers it echoed.
 * Some codes come with a 2xx status (201 code 7 "already started"; 206 code 435 "no recorded data", code 50
 * "upload timeout").
 */
export class ServiceError extends RecordingError {
  override readonly name = 'ServiceError';
  readonly code: number;
  readonly reason: string;
  constructor(
    status: number,
    override readonly body: ServiceErrorBody,
  ) {
    super(status, body, `${status} code ${body.code}: ${body.reason}`);
    this.code = body.code;
    this.reason = body.reason;
  }
}

/** The service codes a caller usually branches on (docs/errors.md has them all). */
export const ERROR_CODES = Object.freeze({
  invalidParameter: 2,
  alreadyStarted: 7,
  invalidOperation: 49,
  uploadTimeout: 50,
  taskConflict: 53,
  requestNotCompleted: 65,
  noRecordedData: 435,
  workerNotFound: 404,
  resourceExpired: 433,
} as const);

/** Tells the two error shapes apart the way the hosted service's own clients do: a `code` key means the service. */
export function errorFromAnswer(status: number, body: unknown): RecordingError {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.code === 'number') return new ServiceError(status, { ...b, code: b.code, reason: typeof b.reason === 'string' ? b.reason : '' });
    if (typeof b.message === 'string') return new GatewayError(status, { message: b.message });
  }
  return new RecordingError(status, body, `${status} unexpected answer`);
}
