import { randomUUID } from 'node:crypto';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { Dispatcher, SWEEP_INTERVAL_MS } from './dispatcher.ts';
import { encodePayload } from './envelope.ts';
import { registerNotifyMetrics } from './metrics.ts';
import { NotifyStore } from './store.ts';
import type { DeliveryFilter, DeliveryRecord, RecordingEventInput } from './types.ts';
import { validateEvent } from './validate.ts';

export interface NotifyModule extends ReeltimeModule {
  /** Durably stores the event (sequence assigned per sid, from 0) and schedules delivery; resolves once stored. */
  emit(event: RecordingEventInput): Promise<void>;
  /** Addresses of the notifier nodes for GET /v1/ncs/ip (the recording API registers that route). */
  ncsHosts(): readonly string[];
  /** Delivery records for an app/sid (for tests, ops and the console): pending, delivered, failed. */
  deliveries(filter: DeliveryFilter): Promise<readonly DeliveryRecord[]>;
}

export function createNotifyModule(ctx: ServerContext): NotifyModule {
  const cfg = ctx.config.notify;
  const log = ctx.log.child({ component: 'notify' });
  const store = new NotifyStore(ctx.database.db);
  const dispatcher = new Dispatcher({
    meter: registerNotifyMetrics(ctx.metrics),
    store,
    clock: ctx.clock,
    log,
    webhooks: cfg.webhooks,
    policy: { allowPrivate: cfg.allowPrivateUrls },
    timeoutMs: cfg.timeoutMs,
    retryDelaysMs: cfg.retryDelaysMs,
    retentionMs: cfg.retentionHours * 3_600_000,
    sweepIntervalMs: ctx.database.dialect === 'postgres' ? SWEEP_INTERVAL_MS : 0,
  });
  // Sequence numbers are read-then-inserted; emits of one session are chained so this process never races itself.
  const chains = new Map<string, Promise<unknown>>();

  async function store1(event: RecordingEventInput): Promise<void> {
    const now = ctx.clock.now();
    const hook = cfg.webhooks[event.appId];
    await store.insert(
      {
        notice_id: randomUUID(),
        app_id: event.appId,
        sid: event.sid,
        cname: event.cname,
        uid: event.uid,
        event_type: event.eventType,
        service_type: event.serviceType,
        msg_name: event.details.msgName,
        status: hook ? 'pending' : 'skipped',
        attempts: 0,
        created_ms: now,
        next_attempt_ms: hook ? now : null,
        delivered_ms: null,
        last_error: hook ? null : `no webhook configured for app ${event.appId}`,
      },
      (sequence) => encodePayload(event, sequence, now),
    );
    if (hook) dispatcher.kick(event.appId, event.sid);
    dispatcher.maybePrune().catch((e: unknown) => log.warn({ err: e }, 'notify: pruning old events failed'));
  }

  return {
    name: 'notify',
    register() {},
    async start() {
      for (const [appId, hook] of Object.entries(cfg.webhooks)) {
        const origin = new URL(hook.url).origin;
        log.info({ appId, origin }, 'notify: webhook configured');
        // The hosted service only accepts HTTPS webhooks; plain HTTP is allowed here but exposes events in transit.
        if (ctx.config.env === 'production' && origin.startsWith('http:')) {
          log.warn({ appId, origin }, 'notify: webhook uses plain HTTP');
        }
      }
      await dispatcher.resume();
    },
    async close() {
      await dispatcher.close();
      await Promise.allSettled([...chains.values()]);
    },
    async emit(event) {
      validateEvent(event);
      const key = `${event.appId}\u0000${event.sid}`;
      const prev = chains.get(key) ?? Promise.resolve();
      const mine = prev.catch(() => {}).then(() => store1(event));
      chains.set(key, mine);
      try {
        await mine;
      } finally {
        if (chains.get(key) === mine) chains.delete(key);
      }
    },
    ncsHosts: () => cfg.ncsHosts,
    deliveries: (filter) => store.list(filter),
  };
}
