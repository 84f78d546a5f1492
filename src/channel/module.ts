import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { configuredApps, type AppLookup } from './apps.ts';
import type { ChannelEventListener, ChannelSnapshot } from './membership/index.ts';
import { registerChannelRoutes, registerPageRoutes } from './http/index.ts';
import { Sfu } from './sfu.ts';

/** The channel module as other modules in the same process see it. */
export interface ChannelModule extends ReeltimeModule {
  /** Who is in a channel now (empty participants when nobody is). */
  snapshot(appId: string, cname: string): ChannelSnapshot;
  /** Every join/leave/publish/unpublish of every channel, in order; returns the unsubscribe function. */
  onEvent(listener: ChannelEventListener): () => void;
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
  return {
    name: 'channel',
    snapshot: (appId, cname) => sfu.membership.snapshot(appId, cname),
    onEvent: (listener) => sfu.membership.subscribe(listener),
    async register(app) {
      if (!enabled) return;
      await app.register(async (child) => {
        registerChannelRoutes(child, {
          sfu,
          clock: ctx.clock,
          log,
          customer: { id: ctx.config.customerId, secret: ctx.config.customerSecret },
          streams,
        });
        registerPageRoutes(child, ctx.config);
      });
    },
    async close() {
      for (const stop of [...streams]) stop();
      await sfu.close();
    },
  };
}
