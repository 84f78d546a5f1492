import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createChannelModule, type ChannelModuleOptions } from '../channel/index.ts';
import { createChatModule } from '../chat/index.ts';
import { createRulesModule } from '../rules/index.ts';
import { createConsoleModule } from '../console/index.ts';
import { systemClock, type Clock } from '../clock/index.ts';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from '../db/index.ts';
import { databaseCheck, healthOpenApi, redisCheck, registerHealthRoutes, storageCheck } from '../health/index.ts';
import { installResponseHeaders, LoginThrottle } from '../http/index.ts';
import { createLogger, type Logger } from '../log/index.ts';
import { createMetricsRegistry, instrumentHttp, metricsOpenApi, registerMetricsRoute } from '../metrics/index.ts';
import { createIngressModule } from '../ingress/index.ts';
import { createNotifyModule } from '../notify/index.ts';
import { inProcessBus, openRedis, redisBus } from '../redis/index.ts';
import { createOpenApiModule } from '../openapi/index.ts';
import { createRecordingModule, type Recorder } from '../recording/index.ts';
import { defaultRecorders, type RecorderTestHooks } from '../recorders/index.ts';
import { createStorageModule } from '../storage/index.ts';
import { frameworkErrorOptions, installRootHandlers } from './framework-errors.ts';
import { ALL_ROLES, type ReeltimeModule, type Role, type ServerContext } from './module.ts';

export interface StartOptions {
  readonly config: Config;
  readonly roles?: readonly Role[];
  readonly clock?: Clock;
  readonly log?: Logger;
  /** An already-open database (tests); otherwise opened from the config. */
  readonly database?: DatabaseHandle;
  /** Listen on config.host:config.port (default true); false leaves the app for inject(). */
  readonly listen?: boolean;
  /** Recorders per mode (tests pass doubles); replaces the default ones. */
  readonly recorders?: readonly Recorder[];
  /** The channel module's options (tests: fault injection hooks). */
  readonly channel?: ChannelModuleOptions;
  /** Fault injection in the default recorders (tests). */
  readonly recorderTestHooks?: RecorderTestHooks;
}

export interface Reeltime {
  readonly app: FastifyInstance;
  readonly context: ServerContext;
  /** http://host:port actually bound (port 0 resolved), or config.publicUrl when not listening. */
  readonly url: string;
  readonly modules: readonly ReeltimeModule[];
  /** Every route registered on the server, one entry per method (what /openapi.json must account for). */
  readonly routes: readonly RegisteredRoute[];
  close(): Promise<void>;
}

export interface RegisteredRoute {
  readonly method: string;
  /** Fastify's pattern (`:param`, a trailing `*`), prefixes included. */
  readonly url: string;
}

/** How long /readyz waits for each dependency: well under a load balancer's usual probe timeout. */
const READY_TIMEOUT_MS = 2000;

/** The composition root: builds every module for the given roles on one Fastify server. */
/** How long a closing server waits for requests still being answered before it closes their connections. */
const CLOSE_GRACE_MS = 2_000;

export async function startReeltime(opts: StartOptions): Promise<Reeltime> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.logLevel);
  const ownDb = !opts.database;
  const database =
    opts.database ??
    (await openDatabase(
      config.databaseUrl ? { url: config.databaseUrl } : { sqlitePath: join(config.dataDir, 'reeltime.sqlite') },
    ));
  // With REDIS_URL, processes coordinate through Redis (docs/deployment.md); without it, in this process.
  const redis = config.redis.url !== undefined ? openRedis({ ...config.redis, url: config.redis.url }, log) : undefined;
  const ctx: ServerContext = {
    config,
    log,
    database,
    clock: opts.clock ?? systemClock,
    roles: new Set(opts.roles ?? ALL_ROLES),
    redis,
    bus: redis ? redisBus(redis) : inProcessBus(),
    metrics: createMetricsRegistry(),
    logins: new LoginThrottle(() => (opts.clock ?? systemClock).now(), config.http),
  };

  // Behind a load balancer every process must count the same failed logins (docs/security.md).
  const stopSharingLogins = redis && ctx.bus ? ctx.logins.shareVia(ctx.bus) : undefined;

  const storage = createStorageModule(ctx);
  const notify = createNotifyModule(ctx);
  const channel = createChannelModule(ctx, opts.channel);
  const recording = await createRecordingModule(ctx, {
    notify,
    recorders: opts.recorders ?? defaultRecorders(ctx, { channel, storage, baseUrl: () => url, ...(opts.recorderTestHooks ? { testHooks: opts.recorderTestHooks } : {}) }),
    playbackUrls: storage.playbackUrls,
    uploadTotals: storage.uploadTotals,
  });
  const chat = createChatModule(ctx);
  const rules = createRulesModule(ctx, { channel });
  const consoleModule = createConsoleModule(ctx);
  const ingress = createIngressModule(ctx, { channel });
  // What each module says about its routes, in the order the document lists them; the routes this file
  // registers itself (health, metrics) come from their folders too.
  const openapi = createOpenApiModule(ctx, () => [
    ...[recording, rules, channel, ingress, chat, storage, notify, consoleModule].flatMap((m) => (m.openapi ? [m.openapi] : [])),
    healthOpenApi(),
    metricsOpenApi(),
  ]);
  const modules: ReeltimeModule[] = [storage, notify, channel, recording, rules, ingress, chat, openapi, consoleModule];

  const wordings = () => modules.flatMap((m) => (m.wordRefusal ? [m.wordRefusal] : []));
  const app: FastifyInstance = Fastify({
    ...frameworkErrorOptions(wordings),
    // Per-request info logs would drown the rest; errors still come through.
    loggerInstance: log.child({ component: 'http' }, { level: 'warn' }) as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    // Request ids in logs, never bodies (they carry storage secrets).
    requestIdHeader: false,
    // A request (body included) that does not arrive in time is answered 408 and its connection closed; Node checks
    // its connections at a quarter of the timeout, so none stays open much past it (docs/configuration.md).
    requestTimeout: config.http.requestTimeoutMs,
    http: {
      requestTimeout: config.http.requestTimeoutMs,
      headersTimeout: config.http.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(config.http.headersTimeoutMs / 4))),
    },
  });
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routes.push({ method, url: r.url });
  });
  installRootHandlers(app, wordings, log);
  installResponseHeaders(app);
  instrumentHttp(app, ctx.metrics);
  registerMetricsRoute(app, ctx.metrics, config.metricsToken !== undefined ? { kind: 'token', token: config.metricsToken } : { kind: 'loopback' });
  registerHealthRoutes(app, {
    roles: [...ctx.roles],
    checks: [
      databaseCheck(database.db),
      ...(redis ? [redisCheck(redis, READY_TIMEOUT_MS)] : []),
      ...(ctx.roles.has('recorder') ? [storageCheck(config.storage, READY_TIMEOUT_MS)] : []),
    ],
    timeoutMs: READY_TIMEOUT_MS,
    log,
  });
  for (const m of modules) await m.register(app);

  let url = config.publicUrl;
  if (opts.listen !== false) {
    await app.listen({ host: config.host, port: config.port });
    const addr = app.server.address();
    if (addr && typeof addr === 'object') {
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      url = `http://${host}:${addr.port}`;
    }
  } else {
    await app.ready();
  }
  for (const m of modules) await m.start?.(url);

  let closed = false;
  return {
    app,
    context: ctx,
    url,
    modules,
    routes,
    async close() {
      if (closed) return;
      closed = true;
      for (const m of [...modules].reverse()) await m.close();
      // Requests still being answered get CLOSE_GRACE_MS; then every connection is closed, so a client that keeps
      // one busy (or a keep-alive socket Node does not count as idle) cannot hold the shutdown for its 72 s timeout.
      const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
      force.unref();
      await app.close().finally(() => clearTimeout(force));
      await stopSharingLogins?.();
      await redis?.close();
      if (ownDb) await database.close();
    },
  };
}
