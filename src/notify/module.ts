import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { checkOutboundUrl, OutboundUrlError } from '../net/index.ts';
import { Outbox } from '../outbox/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { Dispatcher, SWEEP_INTERVAL_MS } from './dispatcher.ts';
import { encodePayload } from './envelope.ts';
import { registerNotifyMetrics } from './metrics.ts';
import { defaultSendersDir } from './senders.ts';
import { NotifyStore } from './store.ts';
import type { DeliveryFilter, DeliveryRecord, RecordingEventInput } from './types.ts';
import { validateEvent } from './validate.ts';

// An event whose storing fails (database unreachable) is kept in memory and tried again, doubling from 250 ms up
// to 5 s, for up to 15 minutes: longer than the spool waits for a slice's manifest row (5 minutes), so a recorder's
// events outlast any outage its recording survives.
const STORE_RETRY_BASE_MS = 250;
const STORE_RETRY_MAX_MS = 5000;
const STORE_RETRY_FOR_MS = 15 * 60_000;
/** Events kept at most while the database is away (about 1 KB each in memory). */
const OUTBOX_MAX_EVENTS = 100_000;
/** How long a graceful stop keeps trying to store waiting events before leaving them in the journal. */
export const OUTBOX_FLUSH_MS = 5_000;

/** An event waiting to be stored, as journalled: everything needed to store it in another process. */
interface KeptEvent {
  readonly event: RecordingEventInput;
  readonly noticeId: string;
  readonly raisedAt: number;
}

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
    journalDir: join(ctx.config.dataDir, 'outbox'),
    sendersDir: defaultSendersDir(),
  });
  /**
   * Events wait here while the database does not answer, in order per session (sequence numbers are
   * read-then-inserted, so events of one sid are stored one at a time), journalled on disk meanwhile so a stop or a
   * crash does not lose them (src/outbox/outbox.ts).
   */
  const outbox = new Outbox<KeptEvent>({
    name: 'notify',
    clock: ctx.clock,
    log,
    write: async ([k]) => store1(k!.event, k!.noticeId, k!.raisedAt),
    maxBatch: 1,
    maxItems: OUTBOX_MAX_EVENTS,
    retryBaseMs: STORE_RETRY_BASE_MS,
    retryMaxMs: STORE_RETRY_MAX_MS,
    retryForMs: STORE_RETRY_FOR_MS,
    dir: join(ctx.config.dataDir, 'outbox'),
  });

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
        // A target the outbound guard refuses is only refused at delivery: say so now. In the background (a name
        // lookup must not hold up the start); at delivery the guard decides again.
        if (!cfg.allowPrivateUrls) {
          checkOutboundUrl(hook.url, { allowPrivate: false }).catch((e: unknown) => {
            if (!(e instanceof OutboundUrlError)) return;
            log.warn({ appId, origin, reason: e.message }, 'notify: webhook URL will be refused at every delivery (outbound guard)');
          });
        }
      }
      const names = cfg.ncsHosts.filter((h) => isIP(h) === 0);
      if (ctx.config.env === 'production' && names.length > 0) {
        // get-ncs-ip's `primaryIP` is for firewall allow-lists: a name there does not say where webhooks come from.
        log.warn(
          { hosts: names },
          'notify: GET /v1/ncs/ip answers host names, not addresses; set notify.ncsHosts (REELTIME_NOTIFY_NCS_HOSTS) to the public addresses webhooks leave from',
        );
      }
      // Events a stopped process of this data dir could not store (a database outage at its stop or crash).
      await outbox.replay();
      await dispatcher.resume();
    },
    async close() {
      await outbox.close(OUTBOX_FLUSH_MS);
      await dispatcher.close();
    },
    async emit(event) {
      validateEvent(event);
      // The notice ID and the time are fixed when the event is raised: a retry finds a row whose insert answer was
      // lost instead of storing it twice, and `sendts` is when it happened.
      await outbox.submit(`${event.appId}\u0000${event.sid}`, { event, noticeId: randomUUID(), raisedAt: ctx.clock.now() });
    },
    ncsHosts: () => cfg.ncsHosts,
    deliveries: (filter) => store.list(filter),
  };
}
