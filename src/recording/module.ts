import { join } from 'node:path';
import { buildRtcTokenWithUid } from '@reeltime/token';
import { RateLimiter } from '../http/index.ts';
import type { NotifyModule } from '../notify/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { createAuthenticator, recordingApi, recordingOpenApi, wordRecordingRefusal } from './api/index.ts';
import { createInProcessDispatcher } from './dispatch/in-process.ts';
import type { RecorderWorker } from './dispatch/bullmq/index.ts';
import type { Dispatcher, Recorder } from './dispatch/types.ts';
import type { RecordingNotifier } from './notifier.ts';
import { SessionRuntime } from './runtime/index.ts';
import { SessionReader, type PlaybackUrls } from './sessions/index.ts';
import type { SessionUploads } from './api/schemas.ts';
import { RecordingService } from './service.ts';
import { TaskStore } from './store/index.ts';

export interface RecordingDeps {
  readonly notify: NotifyModule;
  /** One recorder per mode; a mode without one answers start with a clear code 2 naming the mode. */
  readonly recorders?: readonly Recorder[];
  /** Replaces the in-process dispatcher (e.g. a queue-backed one); `recorders` is then ignored. */
  readonly dispatcher?: Dispatcher;
  /** Playable URL of an object in the local bucket (the storage module's), for the sessions API's files. */
  readonly playbackUrls?: PlaybackUrls;
  /** Files and bytes a session has uploaded (the storage module's), for the sessions API's `uploads`. */
  readonly uploadTotals?: (sid: string) => Promise<SessionUploads>;
}

export type RecordingModule = ReeltimeModule;

/** Lifetime of the token a recorder mints for the uid it rejoins with after a failover. */
const REJOIN_TOKEN_SECONDS = 24 * 3600;

/**
 * A subscriber token for a recorder's new uid after a failover: the server holds the app certificate (as the
 * hosted service does), so the recorder can join under a uid the customer's token did not name.
 */
function rejoinToken(config: ServerContext['config'], appId: string, cname: string, uid: string): string | undefined {
  if (!config.appCertificate || appId.toLowerCase() !== config.appId.toLowerCase()) return undefined;
  return buildRtcTokenWithUid(config.appId, config.appCertificate, cname, Number(uid), 2, REJOIN_TOKEN_SECONDS, REJOIN_TOKEN_SECONDS);
}

export async function createRecordingModule(ctx: ServerContext, deps: RecordingDeps): Promise<RecordingModule> {
  const log = ctx.log.child({ module: 'recording' });
  const cfg = ctx.config.recording;
  const store = new TaskStore(ctx.database.db);
  const recorders = deps.recorders ?? [];
  // Many processes on one PostgreSQL and one Redis: sessions go through the queue (docs/deployment.md).
  const { redis, bus } = ctx;
  const redisUrl = ctx.config.redis.url;
  const shared =
    !deps.dispatcher && redis !== undefined && bus !== undefined && redisUrl !== undefined && ctx.database.dialect === 'postgres'
      ? { redis, bus, redisUrl }
      : undefined;
  // BullMQ only where sessions go through the queue: the one-process default starts without loading it.
  const queue = shared
    ? await import('./dispatch/bullmq/index.ts').then((bullmq) => ({
        bullmq,
        lock: bullmq.redisResourceLock(shared.redis),
        deps: {
          redisUrl: shared.redisUrl,
          redisPrefix: ctx.config.redis.prefix,
          bus: shared.bus,
          clock: ctx.clock,
          log,
          settings: cfg.dispatch,
          leases: new bullmq.LeaseStore(ctx.database.db),
          workers: new bullmq.WorkerRegistry(shared.redis),
        },
      }))
    : undefined;
  const dispatcher =
    deps.dispatcher ??
    (queue ? queue.bullmq.createQueueDispatcher({ ...queue.deps, modes: recorders.map((r) => r.mode) }) : createInProcessDispatcher(recorders));
  const notifier: RecordingNotifier = deps.notify;
  const runtime = new SessionRuntime({
    store,
    clock: ctx.clock,
    log,
    dispatcher,
    notifier,
    ...(queue ? { shared: { lock: queue.lock } } : {}),
    journalDir: join(ctx.config.dataDir, 'outbox'),
  });
  let worker: RecorderWorker | undefined;
  // Where private targets are refused (production), web mode's page URL passes the same outbound guard as
  // webhooks; elsewhere it is not resolved at start at all (no name lookup in development and tests).
  const pageUrlPolicy = ctx.config.notify.allowPrivateUrls ? undefined : { allowPrivate: false };
  const service = new RecordingService({
    config: cfg,
    clock: ctx.clock,
    store,
    runtime,
    dispatcher,
    ...(pageUrlPolicy ? { pageUrlPolicy, outbound: { policy: pageUrlPolicy, storage: ctx.config.storage } } : {}),
  });
  const serveApi = ctx.roles.has('api');
  // Sessions live in the shared database: processes serving the API report them (docs/metrics.md).
  if (serveApi) {
    ctx.metrics.gaugeFrom(
      { name: 'reeltime_recording_sessions', help: 'Recording sessions by mode and state (live, stopping, ended), from the database', labelNames: ['mode', 'state'] },
      async () => (await store.countSessions()).map((r) => [{ mode: r.mode, state: r.state }, r.count] as const),
    );
  }
  return {
    name: 'recording',
    openapi: recordingOpenApi(),
    ...(serveApi ? { wordRefusal: wordRecordingRefusal } : {}),
    async register(app) {
      if (!serveApi) return;
      await recordingApi(app, {
        service,
        auth: createAuthenticator(cfg.customers, cfg.appIds, ctx.logins),
        limiter: new RateLimiter(() => ctx.clock.now(), cfg.rateLimitPerSecond, cfg.rateLimitBurst),
        notifier,
        log,
        sessions: new SessionReader({
          store,
          deliveries: (filter) => deps.notify.deliveries(filter),
          playbackUrls: deps.playbackUrls ?? (async () => new Map()),
          uploads: deps.uploadTotals ?? (async () => ({ files: 0, bytes: 0, pendingFiles: 0, pendingBytes: 0 })),
        }),
      });
    },
    async start() {
      // Reports and history events a stopped process of this data dir could not write (a database outage at its
      // stop or crash) go in first, so a resumed session starts from them.
      await runtime.replayKept();
      // Sessions live before a restart go back to their recorder (resume); stopping ones end (see docs).
      if (!ctx.roles.has('recorder')) return;
      if (queue) {
        worker = queue.bullmq.startRecorderWorker({
          ...queue.deps,
          store,
          recorders,
          reportFor: (task, fence) => runtime.reportFor(task, fence),
          rejoinToken: (appId, cname, uid) => rejoinToken(ctx.config, appId, cname, uid),
          region: cfg.region,
        });
      } else if (!dispatcher.recoversItself) await runtime.recover();
    },
    async close() {
      await worker?.close();
      await runtime.close();
      await dispatcher.close();
    },
  };
}
