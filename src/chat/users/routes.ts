import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { checkAppBearer, checkUserBearer, type ChatApp } from './auth.ts';
import { usersEnvelope } from './envelope.ts';
import { ChatRestError, chatErrors, errorBody } from './errors.ts';
import type { RateLimiter } from '../../http/index.ts';
import type { ChatUser, ChatUserStore } from './store.ts';
import { checkNewUser, checkUsername, type NewUserInput } from './username.ts';

export const MAX_BATCH = 60;

export interface UsersRoutesDeps {
  readonly store: ChatUserStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly limiter: RateLimiter;
  /** The app behind `org/app`, or undefined when this server does not serve it. */
  findApp(org: string, app: string): ChatApp | undefined;
}

interface OrgAppParams {
  org: string;
  app: string;
}

function requestUri(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}${req.url.split('?')[0]}`;
}

/** Turns framework-level failures (bad JSON, wrong media type, huge body) into the chat error shape. */
function frameworkError(err: FastifyError): ChatRestError {
  if (err instanceof ChatRestError) return err;
  const status = err.statusCode ?? 500;
  if (status === 415) return chatErrors.unsupportedMediaType();
  if (status === 413) return chatErrors.tooLarge();
  if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return chatErrors.jsonParse('Request body is empty');
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return chatErrors.jsonParse(`Unexpected character in request body: ${err.message}`);
  }
  if (status >= 400 && status < 500) return chatErrors.badRequest(err.message);
  return chatErrors.internal();
}

/**
 * The chat users REST API: POST /{org}/{app}/users and GET /{org}/{app}/users/{username}.
 * The routes start with two parameters, so every static route of other modules (/v1, /rtc, /chat, /bucket,
 * /healthz) still wins in the router; only paths nobody else claims reach these handlers.
 */
export async function registerUsersRoutes(app: FastifyInstance, deps: UsersRoutesDeps): Promise<void> {
  const { clock, store, log } = deps;

  function appOf(req: FastifyRequest): ChatApp {
    const { org, app: appName } = req.params as OrgAppParams;
    const chatApp = deps.findApp(org, appName);
    if (!chatApp) throw chatErrors.appNotFound(org, appName, requestUri(req));
    const rate = deps.limiter.check(`${org}#${appName}`);
    if (!rate.allowed) throw chatErrors.rateLimited(rate.retryAfterSeconds);
    return chatApp;
  }

  async function run(
    req: FastifyRequest,
    registering: boolean,
    fn: (chatApp: ChatApp, started: number) => Promise<unknown>,
  ): Promise<unknown> {
    const started = performance.now();
    const chatApp = appOf(req);
    const denied = checkAppBearer(req.headers.authorization, chatApp, clock.now(), registering);
    if (denied) throw denied;
    return fn(chatApp, started);
  }

  await app.register(async (scope) => {
    scope.setErrorHandler((err: FastifyError, req, reply) => {
      const e = frameworkError(err);
      if (e.status >= 500) log.error({ err: err.message, url: req.url }, 'chat users API failed');
      if (e.retryAfterSeconds !== undefined) reply.header('retry-after', String(e.retryAfterSeconds));
      return reply.code(e.status).type('application/json').send(errorBody(e, clock.now(), 0));
    });

    scope.post('/:org/:app/users', (req) =>
      run(req, true, async (chatApp, started) => {
        const type = String(req.headers['content-type'] ?? '');
        if (!/^application\/json\b/i.test(type)) throw chatErrors.unsupportedMediaType();
        const batch = Array.isArray(req.body);
        const items: unknown[] = batch ? (req.body as unknown[]) : [req.body];
        if (batch && items.length === 0) throw chatErrors.invalidRequest('The user array is empty.');
        if (items.length > MAX_BATCH) throw chatErrors.batchTooLarge(items.length, MAX_BATCH);
        const inputs: NewUserInput[] = [];
        for (const item of items) {
          const c = checkNewUser(item);
          if (!c.ok) throw c.error;
          inputs.push(c.value);
        }
        const created: ChatUser[] = [];
        const failed: { username: string; registerUserFailReason: string }[] = [];
        for (const input of inputs) {
          const r = await store.create(chatApp.org, chatApp.app, input);
          if (r.kind === 'created') created.push(r.user);
          else if (!batch) throw chatErrors.duplicate(input.username);
          else failed.push({ username: input.username, registerUserFailReason: `the ${input.username} already exists` });
        }
        const env = usersEnvelope({
          action: 'post',
          applicationUuid: chatApp.applicationUuid,
          org: chatApp.org,
          app: chatApp.app,
          uri: requestUri(req),
          entities: created,
          timestamp: clock.now(),
          duration: Math.round(performance.now() - started),
        });
        return batch ? { ...env, data: failed } : env;
      }),
    );

    // A wildcard rather than ":username" so over-long names reach the validator instead of the router's 404.
    scope.get('/:org/:app/users/*', (req) =>
      run(req, false, async (chatApp, started) => {
        const raw = (req.params as { '*': string })['*'];
        const name = checkUsername(raw);
        if (!name.ok) throw name.error;
        const user = await store.find(chatApp.org, chatApp.app, name.value);
        if (!user) throw chatErrors.userNotFound();
        return {
          ...usersEnvelope({
            action: 'get',
            applicationUuid: chatApp.applicationUuid,
            org: chatApp.org,
            app: chatApp.app,
            uri: requestUri(req),
            entities: [user],
            timestamp: clock.now(),
            duration: Math.round(performance.now() - started),
          }),
          count: 1,
        };
      }),
    );

    // The Web SDK's renewToken asks for the new user token's expiry here, authenticated by that token.
    scope.get('/:org/:app/sdk/users/*', async (req) => {
      const chatApp = appOf(req);
      const m = /^([^/]*)\/token\/expires$/.exec((req.params as { '*': string })['*']);
      if (!m) throw chatErrors.routeNotFound();
      const name = checkUsername(m[1]);
      if (!name.ok) throw name.error;
      const user = await store.find(chatApp.org, chatApp.app, name.value);
      if (!user) throw chatErrors.userNotFound();
      const check = checkUserBearer(req.headers.authorization, chatApp, user.uuid, clock.now());
      if (check instanceof ChatRestError) throw check;
      return { expire_timestamp: check.expiresAt * 1000 };
    });
  });
}
