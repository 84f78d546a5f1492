import type { OutboundPolicy } from '../net/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { configuredApps, type AppLookup } from './apps.ts';
import type { ChannelEventListener, ChannelSnapshot } from './membership/index.ts';
import { channelOpenApi, registerChannelRoutes, registerPageRoutes, registerViewerTokenRoute } from './http/index.ts';
import { authorizeJoin } from './auth.ts';
import {
  advertisedUrl,
  channelOwnerUrl,
  followChannel,
  localDirectory,
  redisDirectory,
  type ChannelDirectory,
  type ChannelFollower,
  type ChannelView,
} from './placement/index.ts';
import { registerChannelMetrics } from './metrics.ts';
import { ChannelError } from './errors.ts';
import { Sfu, type LocalPublishHandle, type LocalPublishParams, type SfuTestHooks, type TapHandle, type TapParams } from './sfu.ts';

/** The channel module as other modules in the same process see it. */
export interface ChannelModule extends ReeltimeModule {
  /** Who is in a channel now (empty participants when nobody is). */
  snapshot(appId: string, cname: string): ChannelSnapshot;
  /** Every join/leave/publish/unpublish of every channel, in order; returns the unsubscribe function. */
  onEvent(listener: ChannelEventListener): () => void;
  /**
   * One channel wherever it is hosted: with Redis, followed on its owner node (a recorder-only process hosts
   * nothing); without, this process's membership.
   */
  view(appId: string, cname: string): RecorderChannelView;
  /** Whether this process runs the SFU (the `channel` role), so `tap` can reach its publishers. */
  readonly localMedia: boolean;
  /**
   * In-process subscription to a publisher (a recorder beside the SFU): WHEP's token, profile and membership
   * rules, the publisher's RTP straight from the forwarding path. Throws ChannelError (`not_enabled` without the
   * `channel` role, `publisher_not_found`, token codes).
   */
  tap(params: TapParams): TapHandle;
  /**
   * In-process publish (an ingest beside the SFU), when every channel of the deployment lives in this process (the
   * `channel` role, no Redis); undefined otherwise: the ingest then publishes over WHIP, which reaches the channel's
   * owner node. Throws ChannelError (token codes, `uid_taken`, `profile_mismatch`).
   */
  readonly publishLocal: ((params: LocalPublishParams) => LocalPublishHandle) | undefined;
  /**
   * The outbound URL guard's rule for URLs of other nodes (owners read from Redis, their redirects): private
   * targets as `REELTIME_ALLOW_PRIVATE_URLS` says, plus this process and `REELTIME_CLUSTER_PEERS`.
   */
  peerPolicy(): OutboundPolicy;
}

/** A channel as a recorder sees it. */
export interface RecorderChannelView extends ChannelView {
  /**
   * Checks a reader's RTC token here (every process of a deployment has the app certificate); throws ChannelError.
   * Absent when the channel is in this process: the recorder asks the channel's own endpoint.
   */
  authorize?(uid: number, token: string | undefined): void;
}

/** How often a followed channel's owner is looked up again (a channel nobody hosts yet, or one that moved). */
const FOLLOW_POLL_MS = 1000;

export interface ChannelModuleOptions {
  /** Where apps are looked up; defaults to the configuration's primary app. */
  readonly apps?: AppLookup;
  /** Fault injection for tests (src/channel/sfu.ts). */
  readonly sfuTestHooks?: SfuTestHooks;
}

export function createChannelModule(ctx: ServerContext, opts: ChannelModuleOptions = {}): ChannelModule {
  const log = ctx.log.child({ component: 'channel' });
  const sfu = new Sfu(ctx.config.channel, ctx.clock, log, opts.apps ?? configuredApps(ctx.config), opts.sfuTestHooks);
  const streams = new Set<() => void>();
  const enabled = ctx.roles.has('channel');
  if (enabled) registerChannelMetrics(ctx.metrics, sfu);
  let selfUrl = ctx.config.publicUrl;
  let listenUrl = ctx.config.publicUrl;
  const peerPolicy = (): OutboundPolicy => ({
    allowPrivate: ctx.config.notify.allowPrivateUrls,
    allow: [...new Set([ctx.config.publicUrl, selfUrl, listenUrl].map((u) => new URL(u).origin)), ...ctx.config.clusterPeers],
  });
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
  const redis = ctx.redis;
  // Followers of channels hosted elsewhere, shared by the sessions recording them, closed with the last listener.
  const followers = new Map<string, { readonly follower: ChannelFollower; listeners: number }>();
  const customerAuth = `Basic ${Buffer.from(`${ctx.config.customerId}:${ctx.config.customerSecret}`).toString('base64')}`;
  const localView = (appId: string, cname: string): RecorderChannelView => ({
    snapshot: () => sfu.membership.snapshot(appId, cname),
    onEvent: (listener) => sfu.membership.subscribe((e) => e.appId === appId && e.cname === cname && listener(e)),
    hostUrl: () => undefined,
  });
  const remoteView = (appId: string, cname: string): RecorderChannelView => {
    const key = `${appId.toLowerCase()}\u0000${cname}`;
    const entry = () => {
      let e = followers.get(key);
      if (!e) {
        const follower = followChannel({
          appId,
          cname,
          owner: () => channelOwnerUrl(redis!, appId, cname),
          authorization: customerAuth,
          pollMs: FOLLOW_POLL_MS,
          policy: peerPolicy,
          clock: ctx.clock,
          log,
        });
        followers.set(key, (e = { follower, listeners: 0 }));
      }
      return e;
    };
    return {
      snapshot: () => followers.get(key)?.follower.snapshot() ?? { appId, cname, profile: undefined, participants: [] },
      onEvent(listener) {
        const e = entry();
        e.listeners++;
        const off = e.follower.onEvent(listener);
        let done = false;
        return () => {
          if (done) return;
          done = true;
          off();
          if (--e.listeners === 0 && followers.get(key) === e) {
            followers.delete(key);
            e.follower.close();
          }
        };
      },
      hostUrl: () => followers.get(key)?.follower.hostUrl(),
      authorize(uid, token) {
        authorizeJoin({ app: sfu.app(appId), token, cname, uid, publish: false, nowSec: Math.floor(ctx.clock.now() / 1000) });
      },
    };
  };
  return {
    name: 'channel',
    openapi: channelOpenApi(),
    snapshot: (appId, cname) => sfu.membership.snapshot(appId, cname),
    onEvent: (listener) => sfu.membership.subscribe(listener),
    view: (appId, cname) => (redis ? remoteView(appId, cname) : localView(appId, cname)),
    localMedia: enabled,
    peerPolicy,
    publishLocal: enabled && !ctx.redis ? (params) => sfu.publishLocal(params) : undefined,
    tap(params) {
      if (!enabled) throw new ChannelError('not_enabled', 'this process runs no channel server');
      return sfu.tap(params);
    },
    async register(app) {
      if (!enabled) return;
      // One count of failed Basic logins with the recording API and the bucket.
      const customer = { id: ctx.config.customerId, secret: ctx.config.customerSecret, logins: ctx.logins };
      await app.register(async (child) => {
        registerChannelRoutes(child, {
          sfu,
          config: ctx.config.channel,
          clock: ctx.clock,
          log,
          customer,
          streams,
          directory,
        });
        registerViewerTokenRoute(child, { sfu, customer, clock: ctx.clock });
        registerPageRoutes(child, ctx.config);
      });
    },
    start(url) {
      listenUrl = url;
      selfUrl = advertisedUrl(ctx.config.publicUrl, url);
    },
    async close() {
      for (const { follower } of followers.values()) follower.close();
      followers.clear();
      for (const stop of [...streams]) stop();
      await sfu.close();
      await directory.close();
    },
  };
}
