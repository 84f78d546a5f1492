import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { RedisConnection } from '../../redis/index.ts';
import { channelLeaseKey, renewIntervalMs, shouldRelease } from './lease.ts';

export type Placement = { readonly kind: 'here' } | { readonly kind: 'elsewhere'; readonly ownerUrl: string };

/** Which node hosts each channel. */
export interface ChannelDirectory {
  /**
   * Takes the channel for this node unless another node holds its lease. While `join` runs the channel is not
   * released. Throws when the directory cannot be reached (the caller answers 503).
   */
  claim<T>(appId: string, cname: string, join: (placement: Placement) => Promise<T>): Promise<T>;
  /** Where the channel lives now, without claiming it: undefined when nobody holds it. */
  owner(appId: string, cname: string): Promise<Placement | undefined>;
  close(): Promise<void>;
}

/** The embedded default: one node, every channel here. */
export function localDirectory(): ChannelDirectory {
  return {
    claim: (_a, _c, join) => join({ kind: 'here' }),
    owner: async () => ({ kind: 'here' }),
    close: async () => undefined,
  };
}

export interface RedisDirectoryOptions {
  readonly redis: RedisConnection;
  /** This node's base URL as other nodes and clients reach it (known once the server listens). */
  readonly selfUrl: () => string;
  readonly leaseMs: number;
  readonly clock: Clock;
  readonly log: Logger;
  /** Participants of a channel on this node. */
  readonly participants: (appId: string, cname: string) => number;
}

// Compare-and-act on the owner value, atomically, so a node never extends or deletes another node's lease.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

interface Owned {
  readonly appId: string;
  readonly cname: string;
  joinsInFlight: number;
}

/**
 * Channel ownership as Redis keys `<prefix>channel:<app>:<cname>` = owner URL with a TTL of `leaseMs`, renewed
 * every third of it on the injected clock. A node that dies stops renewing; the key expires and the next join
 * anywhere creates the channel there.
 */
export function redisDirectory(opts: RedisDirectoryOptions): ChannelDirectory {
  const { redis, leaseMs, clock, log } = opts;
  const owned = new Map<string, Owned>();
  let timer: TimerHandle | undefined;
  let closed = false;

  const keyOf = (appId: string, cname: string) => redis.key(...channelLeaseKey(appId, cname));

  /** SET NX, or find who has it; a lease that lapsed between the two is taken on the next round. */
  async function take(key: string): Promise<Placement> {
    const self = opts.selfUrl();
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((await redis.commands.set(key, self, 'PX', leaseMs, 'NX')) === 'OK') return { kind: 'here' };
      const holder = await redis.commands.get(key);
      if (holder === self) {
        await redis.commands.eval(RENEW, 1, key, self, String(leaseMs));
        return { kind: 'here' };
      }
      if (holder !== null) return { kind: 'elsewhere', ownerUrl: holder };
    }
    throw new Error('channel lease changed hands three times in a row');
  }

  async function tick(): Promise<void> {
    const self = opts.selfUrl();
    for (const [key, o] of [...owned]) {
      try {
        if (shouldRelease(opts.participants(o.appId, o.cname), o.joinsInFlight)) {
          owned.delete(key);
          await redis.commands.eval(RELEASE, 1, key, self);
          continue;
        }
        if (Number(await redis.commands.eval(RENEW, 1, key, self, String(leaseMs))) === 1) continue;
        // The lease lapsed (Redis restarted, or this node was cut off longer than the lease): take it back if free.
        const p = await take(key);
        if (p.kind === 'elsewhere') {
          log.warn({ cname: o.cname, owner: p.ownerUrl }, 'channel lease lost to another node; its participants here stay until they reconnect');
          owned.delete(key);
        }
      } catch (e) {
        log.warn({ cname: o.cname, err: (e as Error).message }, 'channel lease renewal failed; retrying next round');
      }
    }
  }

  const schedule = () => {
    if (closed) return;
    timer = clock.setTimeout(() => void tick().finally(schedule), renewIntervalMs(leaseMs));
  };
  schedule();

  return {
    async claim(appId, cname, join) {
      const key = keyOf(appId, cname);
      // Counted before the lease is taken, so a renewal round running meanwhile cannot release it under the join.
      const o = owned.get(key) ?? { appId, cname, joinsInFlight: 0 };
      owned.set(key, o);
      o.joinsInFlight++;
      let placement: Placement | undefined;
      try {
        placement = await take(key);
        return await join(placement);
      } finally {
        o.joinsInFlight--;
        // Not ours (or Redis failed): nothing to renew unless people are still here from before.
        if (placement?.kind !== 'here' && shouldRelease(opts.participants(appId, cname), o.joinsInFlight)) owned.delete(key);
      }
    },
    async owner(appId, cname) {
      const holder = await redis.commands.get(keyOf(appId, cname));
      if (holder === null) return undefined;
      return holder === opts.selfUrl() ? { kind: 'here' } : { kind: 'elsewhere', ownerUrl: holder };
    },
    async close() {
      closed = true;
      if (timer) clock.clearTimeout(timer);
      // Let the channels go at once rather than make their participants wait for the lease to expire.
      const self = opts.selfUrl();
      for (const key of owned.keys()) await redis.commands.eval(RELEASE, 1, key, self).catch(() => undefined);
      owned.clear();
    },
  };
}

/** The base URL of the node that hosts a channel now, read without claiming it; undefined when none does. */
export async function channelOwnerUrl(redis: RedisConnection, appId: string, cname: string): Promise<string | undefined> {
  return (await redis.commands.get(redis.key(...channelLeaseKey(appId, cname)))) ?? undefined;
}
