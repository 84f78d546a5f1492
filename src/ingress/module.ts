import type { ChannelModule } from '../channel/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { createAuthenticator } from '../recording/index.ts';
import { Admission } from '../process/index.ts';
import { ingressOpenApi } from './openapi.ts';
import { bracketed } from './pipeline.ts';
import { registerIngressRoutes } from './routes.ts';
import { startRtmpServer, type RtmpServer } from './rtmp/index.ts';
import { IngressService } from './service.ts';
import { SourceLoops } from './source-loops.ts';
import { IngressStore } from './store.ts';

/** How long a pushed source has to get both its audio and its video into the channel. */
const START_TIMEOUT_MS = 20_000;

export interface IngressModule extends ReeltimeModule {
  /** The RTMP listener's port in this process (undefined without one). */
  rtmpPort(): number | undefined;
}

/**
 * Ingress (docs/ingest.md): the API on `api` processes; the RTMP listener (REELTIME_INGRESS_RTMP_PORT), the SRT
 * listeners (REELTIME_INGRESS_SRT_PORTS) and the pulls (RTSP, SRT caller) on `channel` processes, since a source is
 * published into the channel beside the SFU.
 */
export function createIngressModule(ctx: ServerContext, deps: { readonly channel: ChannelModule }): IngressModule {
  const cfg = ctx.config.ingress;
  const log = ctx.log.child({ component: 'ingress' });
  const listens = ctx.roles.has('channel') && cfg.rtmpPort !== undefined;
  let rtmp: RtmpServer | undefined;
  let baseUrl = ctx.config.publicUrl;
  const rtmpServerUrl = (): string | undefined => {
    if (cfg.rtmpUrl) return cfg.rtmpUrl;
    const port = rtmp?.port ?? (cfg.rtmpPort || undefined);
    if (port === undefined) return undefined;
    return `rtmp://${new URL(ctx.config.publicUrl).host.replace(/:\d+$/, '')}:${port}/${cfg.rtmpApp}`;
  };
  const publicHost = new URL(ctx.config.publicUrl).hostname;
  const store = new IngressStore(ctx.database.db);
  const service = new IngressService({
    store,
    clock: ctx.clock,
    log,
    appCertificate: ctx.config.appCertificate || undefined,
    policy: { allowPrivate: ctx.config.notify.allowPrivateUrls },
    rtmpServerUrl,
    baseUrl: () => baseUrl,
    publishLocal: cfg.mediaPath === 'auto' ? deps.channel.publishLocal : undefined,
    startTimeoutMs: START_TIMEOUT_MS,
    srtPorts: cfg.srtPorts,
    admission: new Admission(cfg.capacity, cfg.cpuThresholdPercent),
    cost: cfg.cost,
    transcodeCost: cfg.transcodeCost,
    srtServerUrl: (port) => {
      const host = cfg.srtPublicHost ?? publicHost;
      return `srt://${bracketed(host)}:${port}`;
    },
  });
  if (ctx.roles.has('channel')) {
    ctx.metrics.gaugeFrom({ name: 'reeltime_ingress_publishing', help: 'Ingresses whose media this process publishes into a channel now, by kind', labelNames: ['kind'] }, () =>
      [...service.publishingByKind()].map(([kind, n]) => [{ kind }, n] as const),
    );
  }
  const sources = ctx.roles.has('channel') ? new SourceLoops({ store, service, clock: ctx.clock, log, srtHost: cfg.srtPorts ? cfg.srtHost : undefined }) : undefined;
  return {
    name: 'ingress',
    openapi: ingressOpenApi(),
    async register(app) {
      if (!ctx.roles.has('api')) return;
      const rec = ctx.config.recording;
      await registerIngressRoutes(app, { service, auth: createAuthenticator(rec.customers, rec.appIds, ctx.logins), log });
    },
    async start(url) {
      baseUrl = url;
      // Without Redis this process is the only one: an ingress marked publishing was cut by its stop or crash.
      // (With several processes, one process cannot tell; see docs/ingest.md, "Not there yet".)
      if (!ctx.redis && ctx.roles.has('channel')) {
        const reset = await store.resetPublishing(ctx.clock.now());
        if (reset > 0) log.info({ count: reset }, 'ingress: publishes cut by the last stop marked waiting');
      }
      await sources?.start();
      if (!listens) return;
      rtmp = await startRtmpServer({
        host: cfg.rtmpHost,
        port: cfg.rtmpPort!,
        app: cfg.rtmpApp,
        handshakeTimeoutMs: cfg.rtmpHandshakeTimeoutMs,
        now: () => ctx.clock.now(),
        authorize: (key, disconnect) => service.authorizeRtmp(key, disconnect),
        onError: (message) => log.warn({ message }, 'ingress: RTMP protocol error'),
      });
      log.info({ host: cfg.rtmpHost, port: rtmp.port, server: rtmpServerUrl() }, 'ingress: RTMP listener up');
    },
    async close() {
      sources?.close();
      service.close();
      await rtmp?.close();
    },
    rtmpPort: () => rtmp?.port,
  };
}
