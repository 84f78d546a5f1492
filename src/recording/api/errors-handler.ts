import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../log/index.ts';
import type { Refusal, RefusalAnswer } from '../../server/framework-errors.ts';
import { errorResponse, RecordingApiError } from '../errors.ts';
import { echoable } from '../validation/index.ts';

/** Body-parsing failures Fastify raises before a handler runs, as catalogue errors naming what was wrong. */
function fromFastify(err: FastifyError): RecordingApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new RecordingApiError('badRequestFormat', 'Content-Type: must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new RecordingApiError('badRequestFormat', 'body: must not be empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new RecordingApiError('badRequestFormat', 'body: must be valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RecordingApiError('bodyTooLarge', 'body: must be at most 1 MiB');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new RecordingApiError('badRequestFormat', 'Content-Length: does not match the body');
    default:
      if (err instanceof SyntaxError) return new RecordingApiError('badRequestFormat', 'body: must be valid JSON');
      return undefined;
  }
}

/** `vendor_over_load` (too many sessions of the app): a session rarely ends sooner than this. */
const OVER_LOAD_RETRY_AFTER_SECONDS = 30;

/** Past this many discarded bytes an oversized upload is cut off (the client may then see a reset). */
const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

/**
 * Reads and drops the rest of a refused body. Answering while the client still sends and then closing (Fastify
 * closes after a body error) resets the connection under the client's feet, so it never reads the 413.
 */
function discardRest(req: IncomingMessage): Promise<void> {
  const declared = Number(req.headers['content-length']);
  if (req.readableEnded || req.destroyed || declared > MAX_DISCARDED_BYTES) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > MAX_DISCARDED_BYTES) done();
    };
    req.on('data', onData).once('end', done).once('close', done).once('error', done);
    req.resume();
  });
}

/**
 * The one error handler of /v1: catalogue errors as they are, echoing only identifiers that pass their own rule;
 * anything else is a 500 without internals.
 */
export function createErrorHandler(log: Logger) {
  return async (err: FastifyError, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    let e = err instanceof RecordingApiError ? err : fromFastify(err);
    if (!e) {
      // The message may quote request data (storage keys included): log the type, code and frames, not the text.
      const frames = (err.stack ?? '').split('\n').filter((l) => l.trimStart().startsWith('at ')).join('\n');
      log.error({ err: { name: err.name, code: err.code, frames }, route: req.routeOptions.url }, 'recording API failure');
      e = new RecordingApiError('internalError');
    }
    if (e.key === 'bodyTooLarge') await discardRest(req.raw);
    const retryAfter = e.retryAfterSeconds ?? (e.key === 'vendorOverLoad' ? OVER_LOAD_RETRY_AFTER_SECONDS : undefined);
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
    const { status, body } = errorResponse(new RecordingApiError(e.key, e.detail, echoable(e.echo)));
    return reply.code(status).send(body);
  };
}

const REFUSALS: Readonly<Record<Refusal, RecordingApiError>> = {
  badUrl: new RecordingApiError('badRequestFormat', 'url: must be valid percent-encoding'),
  uriTooLong: new RecordingApiError('uriTooLong', 'url: path segments must be at most 1024 characters'),
  notFound: new RecordingApiError('noRoute'),
  badRequest: new RecordingApiError('badRequestFormat', 'request: could not be read'),
  internal: new RecordingApiError('internalError'),
};

/** Requests under /v1 the router refused before this API ran, in the catalogue's bodies (nothing echoed). */
export function wordRecordingRefusal(path: string, refusal: Refusal): RefusalAnswer | undefined {
  if (path !== '/v1' && !path.startsWith('/v1/')) return undefined;
  return errorResponse(REFUSALS[refusal]);
}
