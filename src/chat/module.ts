import { createHash } from 'node:crypto';
import { RateLimiter } from '../http/index.ts';
import { inProcessBus } from '../redis/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { chatOpenApi } from './openapi.ts';
import { ChatGateway, MessageStore, registerChatMetrics } from './gateway/index.ts';
import { chatTokenCustomers } from './config.ts';
import {
  ChatTokenService,
  createCallerAuth,
  OPEN_TOKEN_AUTH_WARNING,
  registerTokenRoutes,
  splitAppKey,
} from './token-server/index.ts';
import { ChatUserStore, registerUsersRoutes, wordChatRefusal, type ChatApp } from './users/index.ts';

export interface ChatModule extends ReeltimeModule {
  /** The app the users API and gateway serve; undefined when `chat.appkey` is not `org#app`. */
  readonly chatApp: ChatApp | undefined;
  readonly users: ChatUserStore;
  readonly tokens: ChatTokenService;
  readonly gateway: ChatGateway | undefined;
}

/** A stable UUID-shaped id for an app key, reported as `application` in envelopes. */
function applicationUuid(appId: string, org: string, app: string): string {
  const h = createHash('sha256').update(`${appId}/${org}/${app}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function createChatModule(ctx: ServerContext): ChatModule {
  const { config, clock, database } = ctx;
  const log = ctx.log.child({ module: 'chat' });
  const settings = config.chat.tokenServer;
  let ownUrl = config.publicUrl;
  // Without a configured domain the token server talks to this reeltime's own users API.
  const tokens = new ChatTokenService(settings, () => settings.domain ?? ownUrl, clock, log);
  const users = new ChatUserStore(database.db, clock);
  const key = splitAppKey(config.chat.appKey);
  const chatApp: ChatApp | undefined = key && {
    ...key,
    appId: config.appId,
    appCertificate: config.appCertificate,
    applicationUuid: applicationUuid(config.appId, key.org, key.app),
  };
  const gateway = chatApp
    ? new ChatGateway({
        app: chatApp,
        users,
        messages: new MessageStore(database.db, chatApp.org, chatApp.app),
        clock,
        log,
        bus: ctx.bus ?? inProcessBus(),
      })
    : undefined;
  const enabled = ctx.roles.has('chat');
  if (enabled && gateway) registerChatMetrics(ctx.metrics, gateway);

  return {
    name: 'chat',
    openapi: chatOpenApi(),
    chatApp,
    users,
    tokens,
    gateway,
    ...(enabled && chatApp ? { wordRefusal: wordChatRefusal(chatApp, () => clock.now()) } : {}),
    async register(app) {
      if (!enabled) return;
      const auth = createCallerAuth(
        config.chat.tokenAuth,
        chatTokenCustomers(config.chat, config, config.recording.customers),
        () => Math.floor(clock.now() / 1000),
      );
      if (auth.mode === 'open' && config.env === 'production') {
        // Only reachable with chat.tokenAuth "open" set explicitly (production defaults to "required").
        log.warn({ tokenAuth: 'open' }, OPEN_TOKEN_AUTH_WARNING);
      }
      registerTokenRoutes(app, tokens, auth);
      const limiter = new RateLimiter(() => clock.now(), config.chat.restRateLimit);
      await registerUsersRoutes(app, {
        store: users,
        clock,
        log,
        limiter,
        findApp: (org, name) => (chatApp && chatApp.org === org && chatApp.app === name ? chatApp : undefined),
      });
      if (gateway) gateway.attach(app.server);
      else log.warn({ appkey: config.chat.appKey }, 'chat.appkey is not "org#app": users API and gateway serve no app');
    },
    start(baseUrl) {
      ownUrl = baseUrl;
    },
    async close() {
      await gateway?.close();
    },
  };
}
