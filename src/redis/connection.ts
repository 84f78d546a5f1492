import { Redis } from 'ioredis';
import type { Logger } from '../log/index.ts';
import type { RedisConfig } from './config.ts';

/** One connection for commands and one for subscriptions (a subscribed Redis connection accepts nothing else). */
export interface RedisConnection {
  /** Commands: GET/SET/PUBLISH and the like. Keys must be built with `key()`. */
  readonly commands: Redis;
  /** Subscriptions only; created on first use. */
  subscriber(): Redis;
  /** The configured prefix joined to `parts` with ":". */
  key(...parts: string[]): string;
  /** PING with a deadline: false when Redis does not answer in time (readiness). */
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** `redis://user:secret@host` without the secret, for logs and errors. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis://(unparsable)';
  }
}

function client(url: string, log: Logger, name: string): Redis {
  const r = new Redis(url, {
    connectionName: name,
    // Commands wait for a reconnect rather than fail at once; bounded so a request never hangs for long.
    maxRetriesPerRequest: 3,
    // Reconnect for ever, at most every 2 s: Redis coming back must need no restart of reeltime.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let down = false;
  r.on('error', (e: Error) => {
    // ioredis emits an error per failed reconnect: log the first of each outage only.
    if (!down) log.warn({ redis: redactRedisUrl(url), err: e.message, connection: name }, 'redis connection error');
    down = true;
  });
  r.on('ready', () => {
    if (down) log.info({ redis: redactRedisUrl(url), connection: name }, 'redis connection restored');
    down = false;
  });
  return r;
}

export function openRedis(config: RedisConfig & { readonly url: string }, log: Logger): RedisConnection {
  const commands = client(config.url, log, 'reeltime');
  let sub: Redis | undefined;
  return {
    commands,
    subscriber: () => (sub ??= client(config.url, log, 'reeltime-sub')),
    key: (...parts) => config.prefix + parts.join(':'),
    async ping(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      try {
        return await Promise.race([commands.ping().then((r) => r === 'PONG'), late]);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      for (const r of [sub, commands]) {
        if (!r) continue;
        // quit() waits for a reply that never comes while Redis is down; disconnect() does not wait.
        if (r.status === 'ready') await r.quit().catch(() => r.disconnect());
        else r.disconnect();
      }
    },
  };
}
