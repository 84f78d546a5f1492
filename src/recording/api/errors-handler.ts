import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../log/index.ts';
import { errorResponse, RecordingApiError } from '../errors.ts';

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

/** The one error handler of /v1: catalogue errors as they are; anything else is a 500 without internals. */
export function createErrorHandler(log: Logger) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    let e = err instanceof RecordingApiError ? err : fromFastify(err);
    if (!e) {
      // The message may quote request data (storage keys included): log the type, code and frames, not the text.
      const frames = (err.stack ?? '').split('\n').filter((l) => l.trimStart().startsWith('at ')).join('\n');
      log.error({ err: { name: err.name, code: err.code, frames }, route: req.routeOptions.url }, 'recording API failure');
      e = new RecordingApiError('internalError');
    }
    const { status, body } = errorResponse(e);
    void reply.code(status).send(body);
  };
}
