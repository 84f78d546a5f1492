import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { configuredApps, type AppLookup } from './apps.ts';
import type { ChannelEventListener, ChannelSnapshot } from './membership/index.ts';
import { registerChannelRoutes, registerPageRoutes } from './http/index.ts';
import { advertisedUrl, localDirectory, redisDirectory, type ChannelDirectory } from './placement/index.ts';
import { ChannelError } from './errors.ts';
import { Sfu, type TapHandle, type TapParams } from './sfu.ts';

/** The channel module as other modules in the same process see it. */
export interface ChannelModule extends ReeltimeModule {
  /** Who is in a channel now (empty participants when nobody is). */
  snapshot(appId: string, cname: string): ChannelSnapshot;
  /** Every join/leave/publish/unpublish of every channel, in order; returns the unsubscribe function. */
  onEvent(listener: ChannelEventListener): () => void;
  /** Whether this process runs the SFU (the `channel` role), so `tap` can reach its publishers. */
  readonly localMedia: boolean;
  /**
   * In-process subscription to a publisher (a recorder beside the SFU): WHEP's token, profile and membership
   * rules, the publisher's RTP straight from the forwarding path. Throws ChannelError (`not_enabled` without the
   * `channel` role, `publisher_not_found`, token codes).
   */
  tap(params: TapParams): TapHandle;
}

export interface ChannelModuleOptions {
  /** Where apps are looked up; defaults to the configuration's primary app. */
  readonly apps?: AppLookup;
}

export function createChannelModule(ctx: ServerContext, opts: ChannelModuleOptions = {}): ChannelModule {
  const log = ctx.log.child({ component: 'channel' });
  const sfu = new Sfu(ctx.config.channel, ctx.clock, log, opts.apps ?? configuredApps(ctx.config));
  const streams = new Set<() => void>();
  const enabled = ctx.roles.has('channel');
  let selfUrl = ctx.config.publicUrl;
  // With Redis every channel lives on one channel node (docs/deployment.md); without it, here.
  const directory: ChannelDirectory =
    enabled && ctx.redis
      ? redisDirectory({
          redis: ctx.redis,
          selfUrl: () => selfUrl,
          leaseMs: ctx.config.channel.leaseMs,
          clock: ctx.clock,
          log,
          participants: (appId, cname) => sfu.membership.snapshot(appId, cname).participants.length,
        })
      : localDirectory();
  return {
    name: 'channel',
    snapshot: (appId, cname) => sfu.membership.snapshot(appId, cname),
    onEvent: (listener) => sfu.membership.subscribe(listener),
    localMedia: enabled,
    tap(params) {
      if (!enabled) throw new ChannelError('not_enabled', 'this process runs no channel server');
      return sfu.tap(params);
    },
    async register(app) {
      if (!enabled) return;
      await app.register(async (child) => {
        registerChannelRoutes(child, {
          sfu,
          clock: ctx.clock,
          log,
          customer: { id: ctx.config.customerId, secret: ctx.config.customerSecret },
          streams,
          directory,
        });
        registerPageRoutes(child, ctx.config);
      });
    },
    start(url) {
      selfUrl = advertisedUrl(ctx.config.publicUrl, url);
    },
    async close() {
      for (const stop of [...streams]) stop();
      await sfu.close();
      await directory.close();
    },
  };
}
