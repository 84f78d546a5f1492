import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock/index.ts';
import type { Logger } from '../log/index.ts';
import { errorResponse, RecordingApiError, type Authenticator, type StartClientRequest } from '../recording/index.ts';
import { parseRuleInput, RuleInputError } from './rule.ts';
import type { RuleRow, RuleStore, RunRow } from './store.ts';

export const RULES_BASE = '/v1/apps/:appid/recording-rules';

type AppParams = { appid: string };
type RuleParams = AppParams & { ruleId: string };

export interface RuleRouteDeps {
  readonly store: RuleStore;
  readonly auth: Authenticator;
  readonly clock: Clock;
  readonly log: Logger;
  readonly seal: (clientRequest: StartClientRequest) => string;
  readonly unseal: (rule: RuleRow) => StartClientRequest | undefined;
}

/** What the API shows of a start request: storage and extension secrets never leave the server. */
function redacted(cr: StartClientRequest | undefined): unknown {
  if (!cr) return null;
  const storage = cr.storageConfig as Record<string, unknown> | undefined;
  return { ...cr, ...(storage ? { storageConfig: { ...storage, accessKey: '[redacted]', secretKey: '[redacted]' } } : {}) };
}

const runView = (r: RunRow) => ({
  cname: r.cname,
  state: r.state,
  resourceId: r.resource_id,
  sid: r.sid,
  uid: r.uid,
  updatedAt: r.updated_ms,
  ...(r.error ? { error: r.error } : {}),
});

class NotFound extends Error {}

/** Recording rules (reeltime's extension, docs/recording-rules.md): Basic auth as the recording API, `{code, reason}` errors. */
export async function registerRuleRoutes(app: FastifyInstance, deps: RuleRouteDeps): Promise<void> {
  const { store, auth } = deps;
  const view = (r: RuleRow) => ({
    ruleId: r.rule_id,
    appId: r.app_id,
    cname: r.cname_pattern,
    mode: r.mode,
    uid: r.uid,
    scene: r.scene,
    clientRequest: redacted(deps.unseal(r)),
    createdAt: r.created_ms,
  });
  const found = async (p: RuleParams): Promise<RuleRow> => {
    const r = await store.get(p.appid, p.ruleId);
    if (!r) throw new NotFound();
    return r;
  };
  await app.register(async (r) => {
    r.setErrorHandler(async (err: FastifyError, req, reply) => {
      if (err instanceof RuleInputError) return reply.code(400).send({ code: 2, reason: err.message });
      if (err instanceof NotFound) return reply.code(404).send({ code: 404, reason: 'recording rule not found' });
      // The recording API's gateway refusals (Basic auth, app id, throttling) keep their own bodies.
      if (err instanceof RecordingApiError) {
        const { status, body } = errorResponse(err);
        if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
        return reply.code(status).send(body);
      }
      // Fastify's own refusals of the request (a body that is not JSON, too large).
      if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
        return reply.code(err.statusCode).send({ code: 2, reason: err.message });
      }
      deps.log.error({ err: { name: err.name, code: err.code }, route: req.routeOptions.url }, 'recording rules API failure');
      return reply.code(500).send({ code: 500, reason: 'internal_error' });
    });
    r.addHook('onRequest', async (req: FastifyRequest) => {
      const customer = auth.customer(req.headers.authorization, req.socket.remoteAddress);
      auth.checkApp(customer, (req.params as AppParams).appid);
      (req as FastifyRequest & { customerId?: string }).customerId = customer.id;
    });
    r.post<{ Params: AppParams }>(RULES_BASE, async (req, reply) => {
      const input = parseRuleInput(req.body);
      const row: RuleRow = {
        rule_id: randomUUID(),
        app_id: req.params.appid,
        customer_id: (req as FastifyRequest & { customerId?: string }).customerId!,
        cname_pattern: input.cname,
        mode: input.mode,
        uid: input.uid ?? null,
        scene: input.scene,
        client_request_sealed: deps.seal(input.clientRequest),
        created_ms: deps.clock.now(),
      };
      await store.insert(row);
      return reply.code(201).send(view(row));
    });
    r.get<{ Params: AppParams }>(RULES_BASE, async (req) => ({ rules: (await store.list(req.params.appid)).map(view) }));
    r.get<{ Params: RuleParams }>(`${RULES_BASE}/:ruleId`, async (req) => {
      const rule = await found(req.params);
      return { ...view(rule), recordings: (await store.runs(rule.rule_id)).map(runView) };
    });
    r.delete<{ Params: RuleParams }>(`${RULES_BASE}/:ruleId`, async (req, reply) => {
      if (!(await store.remove(req.params.appid, req.params.ruleId))) throw new NotFound();
      return reply.code(204).send();
    });
  });
}
