import { randomUUID } from 'node:crypto';
import type { MessageBus } from '../redis/index.ts';
import { refill, secondsUntilToken, type Bucket } from './rate-limit.ts';

/** How many failed logins a client address, and a customer id, may make per minute before being refused. */
export interface LoginThrottleSettings {
  readonly loginFailuresPerMinutePerAddress: number;
  readonly loginFailuresPerMinutePerCustomer: number;
}

/** Past this many tracked keys, keys whose bucket has refilled are dropped (an attacker cycling ids cannot grow it). */
const PRUNE_ABOVE = 10_000;

/**
 * Counts failed HTTP Basic logins per client address and per customer id (a token bucket each: `limit` failures at
 * once, refilled at `limit` per minute). While either is empty every attempt of that address or id is refused with
 * 429 and `Retry-After`, the right secret included: otherwise the guess that hits would still be told so. Shared by
 * every route that takes customer credentials (the recording API, the bucket), so they count together; with
 * `shareVia`, by every process on the bus too (behind a load balancer each would otherwise grant the full budget).
 */
export class LoginThrottle {
  readonly #buckets = new Map<string, Bucket>();
  /** Set by shareVia: tells the other processes of each failure counted here. */
  #tell: ((failure: SharedFailure) => void) | undefined;

  constructor(
    private readonly now: () => number,
    private readonly settings: LoginThrottleSettings,
  ) {}

  /** Seconds to wait when `address` or `customerId` has used up its failures; undefined when it may try. */
  refusal(address: string | undefined, customerId: string | undefined): number | undefined {
    let wait: number | undefined;
    for (const [key, limit] of this.#keys(address, customerId)) {
      const b = this.#buckets.get(key);
      if (!b) continue;
      const now = refill(b, this.now(), limit / 60, limit);
      if (now.tokens < 1) wait = Math.max(wait ?? 0, secondsUntilToken(now, limit / 60));
    }
    return wait;
  }

  /** Counts one failed login of `address` (and of `customerId` when the request named one). */
  failed(address: string | undefined, customerId: string | undefined): void {
    this.#count(address, customerId);
    this.#tell?.({ address, customerId });
  }

  /**
   * Counts the failures every other process on `bus` counts, and tells them of this one's (the bus's `login-failures`
   * topic; a process that joins later starts from its own count). Subscribes in the background, again every
   * `retryMs` while the bus refuses (Redis down at start must not hold the server up); returns the way out.
   */
  shareVia(bus: MessageBus, retryMs = 5_000): () => Promise<void> {
    const origin = randomUUID();
    let unsubscribe: (() => Promise<void>) | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const subscribe = () =>
      bus
        .subscribe(LOGIN_FAILURES_TOPIC, (message) => {
          const heard = readSharedFailure(message);
          if (heard && heard.origin !== origin) this.#count(heard.address, heard.customerId);
        })
        .then(
          (u) => {
            if (stopped) void u();
            else unsubscribe = u;
          },
          () => {
            if (!stopped) retry = setTimeout(subscribe, retryMs).unref();
          },
        );
    void subscribe();
    this.#tell = (failure) => {
      // Best effort: a bus that is down leaves each process its own count, as without sharing.
      bus.publish(LOGIN_FAILURES_TOPIC, JSON.stringify({ origin, ...failure })).catch(() => undefined);
    };
    return async () => {
      stopped = true;
      clearTimeout(retry);
      this.#tell = undefined;
      await unsubscribe?.();
    };
  }

  #count(address: string | undefined, customerId: string | undefined): void {
    const t = this.now();
    for (const [key, limit] of this.#keys(address, customerId)) {
      const b = refill(this.#buckets.get(key), t, limit / 60, limit);
      this.#buckets.set(key, { tokens: Math.max(0, b.tokens - 1), at: t });
    }
    if (this.#buckets.size > PRUNE_ABOVE) this.#prune(t);
  }

  #keys(address: string | undefined, customerId: string | undefined): [string, number][] {
    const keys: [string, number][] = [];
    const { loginFailuresPerMinutePerAddress: perAddress, loginFailuresPerMinutePerCustomer: perCustomer } = this.settings;
    if (address !== undefined && perAddress > 0) keys.push([`a:${address}`, perAddress]);
    if (customerId !== undefined && perCustomer > 0) keys.push([`c:${customerId}`, perCustomer]);
    return keys;
  }

  #prune(t: number): void {
    for (const [key, b] of this.#buckets) {
      const limit = key.startsWith('a:') ? this.settings.loginFailuresPerMinutePerAddress : this.settings.loginFailuresPerMinutePerCustomer;
      if (refill(b, t, limit / 60, limit).tokens >= limit) this.#buckets.delete(key);
    }
  }
}

/** The bus topic processes tell each other their failed logins on. */
export const LOGIN_FAILURES_TOPIC = 'login-failures';

interface SharedFailure {
  readonly address: string | undefined;
  readonly customerId: string | undefined;
}

/** A failure another process told of, or undefined for a message that is not one. */
function readSharedFailure(message: string): (SharedFailure & { readonly origin: string }) | undefined {
  let v: unknown;
  try {
    v = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { origin, address, customerId } = v as Record<string, unknown>;
  const optionalString = (x: unknown) => x === undefined || (typeof x === 'string' && x.length <= 256);
  if (typeof origin !== 'string' || !optionalString(address) || !optionalString(customerId)) return undefined;
  return { origin, address: address as string | undefined, customerId: customerId as string | undefined };
}
