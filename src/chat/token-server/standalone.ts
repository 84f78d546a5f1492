import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { createCallerAuth, type TokenAuthSettings } from './caller-auth.ts';
import { registerTokenRoutes } from './routes.ts';
import type { TokenServerSettings } from './settings.ts';
import { ChatTokenService } from './token-service.ts';

export interface StandaloneTokenServer {
  readonly app: FastifyInstance;
  /** http://address:port actually bound. */
  readonly url: string;
  readonly service: ChatTokenService;
  close(): Promise<void>;
}

/** The token server alone (`reeltime chat-token-server`), on `server.address:server.port`, for any `domain`. */
export async function startTokenServer(
  settings: TokenServerSettings,
  opts: {
    readonly log: Logger;
    readonly clock?: Clock;
    /** Who may ask for tokens, and the Basic credentials of app backends (docs/chat.md). */
    readonly auth: TokenAuthSettings;
    readonly customers: readonly { readonly id: string; readonly secret: string }[];
  },
): Promise<StandaloneTokenServer> {
  const log = opts.log.child({ module: 'chat-token-server' });
  const clock = opts.clock ?? systemClock;
  const service = new ChatTokenService(settings, () => settings.domain ?? '', clock, log);
  const auth = createCallerAuth(opts.auth, opts.customers, () => Math.floor(clock.now() / 1000));
  const app = Fastify({
    loggerInstance: log.child({ component: 'http' }, { level: 'warn' }) as FastifyBaseLogger,
    requestIdHeader: false,
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  registerTokenRoutes(app, service, auth);
  await app.listen({ host: settings.address, port: settings.port });
  const addr = app.server.address();
  const url =
    addr && typeof addr === 'object'
      ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
      : `http://${settings.address}:${settings.port}`;
  return { app, url, service, close: () => app.close() };
}
