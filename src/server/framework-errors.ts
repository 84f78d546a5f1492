import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log/index.ts';

/**
 * What the framework refuses before any module route runs. Fastify's own answers quote the request (the whole
 * URL of a 414 or a bad percent-escape, the Content-Type of a 415), so every one of them goes through here and
 * comes out as a small JSON body with a fixed reason. docs/architecture.md, "Requests no route answers".
 */
export type Refusal = 'badUrl' | 'uriTooLong' | 'notFound' | 'badRequest' | 'internal';

export interface RefusalAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/** A module's wording of a refusal for the paths it owns (the recording API's `/v1/`); undefined when not its path. */
export type RefusalWording = (path: string, refusal: Refusal) => RefusalAnswer | undefined;

/** Path parameters up to this length reach the routes (a resourceId may have 256 characters); longer ones are 414. */
export const MAX_PARAM_LENGTH = 1024;

const PLAIN: Readonly<Record<Refusal, readonly [number, string, string]>> = {
  badUrl: [400, 'bad_url', 'the URL is not valid percent-encoding'],
  uriTooLong: [414, 'uri_too_long', `a path segment is longer than ${MAX_PARAM_LENGTH} characters`],
  notFound: [404, 'not_found', 'no route for this method and path'],
  badRequest: [400, 'bad_request', 'the request could not be read'],
  internal: [500, 'internal', 'internal error; see the server log'],
};

/** The server's own body for a refusal no module words: `{error, reason}`, as the channel API answers. */
export function plainRefusal(refusal: Refusal, status?: number): RefusalAnswer {
  const [defaultStatus, error, reason] = PLAIN[refusal];
  return { status: status ?? defaultStatus, body: { error, reason } };
}

/** The path of a raw request URL, cut to a bounded prefix (only used to pick the module that words the answer). */
function pathOf(url: string | undefined): string {
  const raw = (url ?? '/').slice(0, 64);
  const q = raw.indexOf('?');
  return q < 0 ? raw : raw.slice(0, q);
}

export function answerRefusal(wordings: readonly RefusalWording[], url: string | undefined, refusal: Refusal, status?: number): RefusalAnswer {
  const path = pathOf(url);
  for (const word of wordings) {
    const answer = word(path, refusal);
    if (answer) return answer;
  }
  return plainRefusal(refusal, status);
}

/** Which refusal a framework error is (by its code; 4xx framework errors otherwise are unreadable requests). */
function refusalOf(err: FastifyError): { refusal: Refusal; status?: number } {
  if (err.code === 'FST_ERR_BAD_URL') return { refusal: 'badUrl' };
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return { refusal: 'uriTooLong' };
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { refusal: 'badRequest', status };
  return { refusal: 'internal' };
}

/** What a refused connection may still send while its answer goes out. */
const MAX_DRAINED_BYTES = 1024 * 1024;

/**
 * Fastify options that route the errors raised before routing (bad URL, over-long parameter, async constraint)
 * and at the socket (header overflow, timeout, unparsable request) to bounded JSON bodies.
 */
export function frameworkErrorOptions(wordings: () => readonly RefusalWording[]) {
  return {
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
      const { refusal, status } = refusalOf(err);
      const answer = answerRefusal(wordings(), req.raw.url, refusal, status);
      void reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
    },
    clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return;
      const [status, error, reason] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', 'the request line and headers exceed 16 KiB']
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'timeout', 'the request was not received in time']
            : [400, 'bad_request', 'the request could not be read'];
      const body = JSON.stringify({ error, reason });
      // End (not destroy) and drain what the client is still sending: a reset would reach it before the answer.
      socket.end(
        `HTTP/1.1 ${status} ${error}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      // Drained for at most 5 s and 1 MiB: a client still sending after that is cut off.
      let drained = 0;
      socket.on('data', (d: Buffer) => {
        drained += d.length;
        if (drained > MAX_DRAINED_BYTES) socket.destroy();
      });
      socket.resume();
      setTimeout(() => socket.destroy(), 5_000).unref();
    },
  };
}

/** Root 404 and error handlers: modules with their own scope (the recording API) keep theirs. */
export function installRootHandlers(app: FastifyInstance, wordings: () => readonly RefusalWording[], log: Logger): void {
  app.setNotFoundHandler((req, reply) => {
    const answer = answerRefusal(wordings(), req.raw.url, 'notFound');
    void reply.code(answer.status).send(answer.body);
  });
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { refusal, status } = refusalOf(err);
    // The message may quote request data: log the code and route, not the text.
    if (refusal === 'internal') log.error({ err: { name: err.name, code: err.code }, route: req.routeOptions.url }, 'request failed');
    const answer = answerRefusal(wordings(), req.raw.url, refusal, status);
    return reply.code(answer.status).send(answer.body);
  });
}
