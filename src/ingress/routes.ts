import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../log/index.ts';
import { errorResponse, RecordingApiError, type Authenticator } from '../recording/index.ts';
import { IngressError, ingressErrorBody } from './errors.ts';
import type { IngressService } from './service.ts';

interface AppParams {
  appid: string;
}
interface IngressParams extends AppParams {
  ingressId: string;
}

/** The base of the ingress routes (reeltime's extension beside the recording API), docs/ingest.md. */
export const INGRESS_BASE = '/v1/apps/:appid/ingress';

/** Body-parsing failures Fastify raises before a handler runs, worded as validation errors. */
function fromFastify(err: FastifyError): IngressError | undefined {
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new IngressError('badRequestFormat', 'body: must not be empty');
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) return new IngressError('badRequestFormat', 'body: must be valid JSON');
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new IngressError('badRequestFormat', 'Content-Type: must be application/json');
  return undefined;
}

/** The ingress API: Basic auth as the recording API (same customers, same gateway refusals), `{code, reason}` errors. */
export async function registerIngressRoutes(app: FastifyInstance, deps: { service: IngressService; auth: Authenticator; log: Logger }): Promise<void> {
  const { service, auth } = deps;
  await app.register(async (r) => {
    r.setErrorHandler(async (err: FastifyError, req, reply) => {
      if (err instanceof RecordingApiError) {
        const { status, body } = errorResponse(err);
        if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
        return reply.code(status).send(body);
      }
      let e = err instanceof IngressError ? err : fromFastify(err);
      if (!e) {
        deps.log.error({ err: { name: err.name, code: err.code }, route: req.routeOptions.url }, 'ingress API failure');
        e = new IngressError('internalError');
      }
      const { status, body } = ingressErrorBody(e);
      return reply.code(status).send(body);
    });
    r.addHook('onRequest', async (req: FastifyRequest) => {
      const customer = auth.customer(req.headers.authorization, req.socket.remoteAddress);
      auth.checkApp(customer, (req.params as AppParams).appid);
    });
    r.post<{ Params: AppParams }>(INGRESS_BASE, async (req, reply) => reply.code(201).send(await service.create(req.params.appid, req.body)));
    r.get<{ Params: AppParams }>(INGRESS_BASE, async (req) => ({ ingresses: await service.list(req.params.appid) }));
    r.get<{ Params: IngressParams }>(`${INGRESS_BASE}/:ingressId`, async (req) => service.get(req.params.appid, req.params.ingressId));
    r.delete<{ Params: IngressParams }>(`${INGRESS_BASE}/:ingressId`, async (req, reply) => {
      await service.remove(req.params.appid, req.params.ingressId);
      return reply.code(204).send();
    });
  });
}
