import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../../log/index.ts';
import { errorResponse, fromDomainError, RecordingApiError, type Echo } from '../errors.ts';
import type { RecordingNotifier } from '../notifier.ts';
import type { RecordingService } from '../service.ts';
import type { Authenticator } from './basic-auth.ts';
import { createErrorHandler } from './errors-handler.ts';
import type { RateLimiter } from '../../http/index.ts';
import type { SessionReader } from '../sessions/index.ts';
import { registerSessionRoutes } from './sessions-routes.ts';
import { acquireBody, queryJson, sessionBody, stopAnswer } from './responses.ts';

export interface ApiDeps {
  readonly service: RecordingService;
  readonly auth: Authenticator;
  readonly limiter: RateLimiter;
  readonly notifier: RecordingNotifier;
  readonly log: Logger;
  /** The sessions API (reeltime's extension); absent, its routes are not registered. */
  readonly sessions?: SessionReader;
}

interface AppParams {
  appid: string;
}
interface ResourceParams extends AppParams {
  resourceid: string;
  mode: string;
}
interface SessionParams extends ResourceParams {
  sid: string;
}

/** Identifiers the request names (body cname and uid when strings, path resourceId and sid), echoed in its errors. */
function requestEcho(req: FastifyRequest): Echo {
  const b = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
  const p = req.params as Partial<SessionParams>;
  return {
    cname: typeof b.cname === 'string' ? b.cname : undefined,
    uid: typeof b.uid === 'string' ? b.uid : undefined,
    resourceId: p.resourceid,
    sid: p.sid,
  };
}

/** Runs a service call; a domain refusal becomes its catalogue error (other faults reach the error handler as they are). */
async function serve<T>(req: FastifyRequest, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw fromDomainError(e, requestEcho(req)) ?? e;
  }
}

/** Routes of the recording API under /v1, with the gateway's auth, rate limit, 404 and error bodies. */
export async function recordingApi(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const { service, auth, limiter } = deps;
  await app.register(
    async (v1) => {
      // Content-Type is optional in the spec: bodies without one (or text/plain) are parsed as JSON too.
      const json = v1.getDefaultJsonParser('error', 'error');
      v1.removeAllContentTypeParsers();
      v1.addContentTypeParser('application/json', { parseAs: 'string' }, json);
      v1.addContentTypeParser('*', { parseAs: 'string' }, json);
      v1.setErrorHandler(createErrorHandler(deps.log));
      // A pino child per request (with redaction) costs more than a query itself; these routes log through the
      // module logger, so requests share the server logger.
      v1.setChildLoggerFactory((logger) => logger);
      // Unknown paths and wrong methods under /v1 answer like the hosted gateway; other prefixes are untouched.
      v1.setNotFoundHandler((_req, reply) => {
        const { status, body } = errorResponse(new RecordingApiError('noRoute'));
        void reply.code(status).send(body);
      });

      const authenticate = async (req: FastifyRequest) => {
        const customer = auth.customer(req.headers.authorization, req.socket.remoteAddress);
        const appId = (req.params as Partial<AppParams>).appid;
        if (appId !== undefined) {
          auth.checkApp(customer, appId);
          const rate = limiter.check(appId);
          if (!rate.allowed) throw new RecordingApiError('rateLimited', undefined, {}, rate.retryAfterSeconds);
        }
      };

      await v1.register(async (r) => {
        r.addHook('onRequest', authenticate);
        const base = '/apps/:appid/cloud_recording';
        const session = `${base}/resourceid/:resourceid/sid/:sid/mode/:mode`;

        r.get('/ncs/ip', async () => ({
          data: { service: { hosts: deps.notifier.ncsHosts().map((primaryIP) => ({ primaryIP })) } },
        }));

        r.post<{ Params: AppParams }>(`${base}/acquire`, async (req, reply) => {
          const task = await serve(req, () => service.acquire(req.params.appid, req.body));
          return reply.send(acquireBody(task));
        });
        r.post<{ Params: ResourceParams }>(`${base}/resourceid/:resourceid/mode/:mode/start`, async (req, reply) => {
          const p = req.params;
          return reply.send(sessionBody(await serve(req, () => service.start(p.appid, p.resourceid, p.mode, req.body))));
        });
        r.get<{ Params: SessionParams }>(`${session}/query`, async (req, reply) => {
          const p = req.params;
          const task = await serve(req, () => service.query(p.appid, p.resourceid, p.sid, p.mode));
          return reply.type('application/json; charset=utf-8').send(queryJson(task));
        });
        r.post<{ Params: SessionParams }>(`${session}/update`, async (req, reply) => {
          const p = req.params;
          return reply.send(sessionBody(await serve(req, () => service.update(p.appid, p.resourceid, p.sid, p.mode, req.body))));
        });
        r.post<{ Params: SessionParams }>(`${session}/updateLayout`, async (req, reply) => {
          const p = req.params;
          const task = await serve(req, () => service.updateLayout(p.appid, p.resourceid, p.sid, p.mode, req.body));
          return reply.send(sessionBody(task));
        });
        r.post<{ Params: SessionParams }>(`${session}/stop`, async (req, reply) => {
          const p = req.params;
          const { status, body } = stopAnswer(await serve(req, () => service.stop(p.appid, p.resourceid, p.sid, p.mode, req.body)));
          return reply.code(status).send(body);
        });
        if (deps.sessions) registerSessionRoutes(r, base, deps.sessions);
      });
    },
    { prefix: '/v1' },
  );
}
