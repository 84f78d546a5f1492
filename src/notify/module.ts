import { randomUUID } from 'node:crypto';
import type { TimerHandle } from '../clock/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { Dispatcher, SWEEP_INTERVAL_MS } from './dispatcher.ts';
import { encodePayload } from './envelope.ts';
import { registerNotifyMetrics } from './metrics.ts';
import { NotifyStore } from './store.ts';
import type { DeliveryFilter, DeliveryRecord, RecordingEventInput } from './types.ts';
import { validateEvent } from './validate.ts';

// An event whose storing fails (database unreachable) is kept in memory and tried again, doubling from 250 ms up
// to 5 s, for up to 15 minutes: longer than the spool waits for a slice's manifest row (5 minutes), so a recorder's
// events outlast any outage its recording survives.
const STORE_RETRY_BASE_MS = 250;
const STORE_RETRY_MAX_MS = 5000;
const STORE_RETRY_FOR_MS = 15 * 60_000;

export interface NotifyModule extends ReeltimeModule {
  /**
   * Durably stores the event (sequence assigned per sid, from 0) and schedules delivery; resolves once stored. While
   * the database does not answer, the event waits in this process (see STORE_RETRY_*) in its session's order.
   */
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
  // Waits of events kept in memory while the database is unreachable; close() ends them.
  const waits = new Set<{ timer: TimerHandle; reject: (e: Error) => void }>();
  let closed = false;

  async function store1(event: RecordingEventInput, noticeId: string, raisedAt: number): Promise<void> {
    const hook = cfg.webhooks[event.appId];
    await store.insert(
      {
        notice_id: noticeId,
        app_id: event.appId,
        sid: event.sid,
        cname: event.cname,
        uid: event.uid,
        event_type: event.eventType,
        service_type: event.serviceType,
        msg_name: event.details.msgName,
        status: hook ? 'pending' : 'skipped',
        attempts: 0,
        created_ms: raisedAt,
        next_attempt_ms: hook ? raisedAt : null,
        delivered_ms: null,
        last_error: hook ? null : `no webhook configured for app ${event.appId}`,
      },
      (sequence) => encodePayload(event, sequence, raisedAt),
    );
    if (hook) dispatcher.kick(event.appId, event.sid);
    dispatcher.maybePrune().catch((e: unknown) => log.warn({ err: e }, 'notify: pruning old events failed'));
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const w = {
        timer: ctx.clock.setTimeout(() => {
          waits.delete(w);
          resolve();
        }, ms),
        reject,
      };
      waits.add(w);
    });
  }

  /**
   * Stores the event, retrying on the clock while the database does not answer (a recorder records on through a
   * database outage, and its events must reach the webhook afterwards). The notice ID is fixed before the first try,
   * so an insert whose answer was lost is found rather than stored twice; the per-sid chain keeps later events of the
   * session behind this one, so sequence numbers follow the order the events were raised in.
   */
  async function storeKept(event: RecordingEventInput): Promise<void> {
    const noticeId = randomUUID();
    const raisedAt = ctx.clock.now();
    for (let attempt = 1; ; attempt++) {
      try {
        await store1(event, noticeId, raisedAt);
        if (attempt > 1) log.info({ sid: event.sid, eventType: event.eventType, attempts: attempt }, 'notify: event stored after the database came back');
        return;
      } catch (e) {
        if (closed || ctx.clock.now() - raisedAt >= STORE_RETRY_FOR_MS) throw e;
        if (attempt === 1) log.warn({ err: (e as Error).message, sid: event.sid, eventType: event.eventType }, 'notify: storing an event failed; kept and retried');
        await pause(Math.min(STORE_RETRY_BASE_MS * 2 ** Math.min(attempt - 1, 8), STORE_RETRY_MAX_MS));
      }
    }
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
      closed = true;
      for (const w of waits) {
        ctx.clock.clearTimeout(w.timer);
        w.reject(new Error('notify closed before the event could be stored'));
      }
      waits.clear();
      await dispatcher.close();
      await Promise.allSettled([...chains.values()]);
    },
    async emit(event) {
      validateEvent(event);
      const key = `${event.appId}\u0000${event.sid}`;
      const prev = chains.get(key) ?? Promise.resolve();
      const mine = prev.catch(() => {}).then(() => storeKept(event));
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
