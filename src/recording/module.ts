import { RateLimiter } from '../http/index.ts';
import type { NotifyModule } from '../notify/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { createAuthenticator, recordingApi, wordRecordingRefusal } from './api/index.ts';
import { createInProcessDispatcher } from './dispatch/in-process.ts';
import type { Dispatcher, Recorder } from './dispatch/types.ts';
import type { RecordingNotifier } from './notifier.ts';
import { SessionRuntime } from './runtime.ts';
import { RecordingService } from './service.ts';
import { TaskStore } from './store/index.ts';

export interface RecordingDeps {
  readonly notify: NotifyModule;
  /** One recorder per mode; a mode without one answers start with a clear code 2 naming the mode. */
  readonly recorders?: readonly Recorder[];
  /** Replaces the in-process dispatcher (e.g. a queue-backed one); `recorders` is then ignored. */
  readonly dispatcher?: Dispatcher;
}

export type RecordingModule = ReeltimeModule;

export function createRecordingModule(ctx: ServerContext, deps: RecordingDeps): RecordingModule {
  const log = ctx.log.child({ module: 'recording' });
  const cfg = ctx.config.recording;
  const store = new TaskStore(ctx.database.db);
  const dispatcher = deps.dispatcher ?? createInProcessDispatcher(deps.recorders ?? []);
  const notifier: RecordingNotifier = deps.notify;
  const runtime = new SessionRuntime({ store, clock: ctx.clock, log, dispatcher, notifier });
  // Where private targets are refused (production), web mode's page URL passes the same outbound guard as
  // webhooks; elsewhere it is not resolved at start at all (no name lookup in development and tests).
  const pageUrlPolicy = ctx.config.notify.allowPrivateUrls ? undefined : { allowPrivate: false };
  const service = new RecordingService({ config: cfg, clock: ctx.clock, store, runtime, dispatcher, ...(pageUrlPolicy ? { pageUrlPolicy } : {}) });
  const serveApi = ctx.roles.has('api');
  return {
    name: 'recording',
    ...(serveApi ? { wordRefusal: wordRecordingRefusal } : {}),
    async register(app) {
      if (!serveApi) return;
      await recordingApi(app, {
        service,
        auth: createAuthenticator(cfg.customers, cfg.appIds),
        limiter: new RateLimiter(() => ctx.clock.now(), cfg.rateLimitPerSecond, cfg.rateLimitBurst),
        notifier,
        log,
        sessions: {
          store,
          serveBucket: ctx.config.storage.serveBucket,
          webhooks: (appId, sid) => deps.notify.deliveries({ appId, sid }),
        },
      });
    },
    async start() {
      // Sessions live before a restart go back to their recorder (resume); stopping ones end (see docs).
      if (ctx.roles.has('recorder')) await runtime.recover();
    },
    async close() {
      await runtime.close();
      await dispatcher.close();
    },
  };
}
