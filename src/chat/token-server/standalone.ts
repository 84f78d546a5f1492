import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
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
  opts: { readonly log: Logger; readonly clock?: Clock },
): Promise<StandaloneTokenServer> {
  const log = opts.log.child({ module: 'chat-token-server' });
  const service = new ChatTokenService(settings, () => settings.domain ?? '', opts.clock ?? systemClock, log);
  const app = Fastify({
    loggerInstance: log.child({ component: 'http' }, { level: 'warn' }) as FastifyBaseLogger,
    requestIdHeader: false,
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  registerTokenRoutes(app, service);
  await app.listen({ host: settings.address, port: settings.port });
  const addr = app.server.address();
  const url =
    addr && typeof addr === 'object'
      ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`
      : `http://${settings.address}:${settings.port}`;
  return { app, url, service, close: () => app.close() };
}
