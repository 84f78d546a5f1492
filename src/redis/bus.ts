import type { RedisConnection } from './connection.ts';

export type BusHandler = (message: string) => void;

/**
 * Fire-and-forget messages by topic: to every subscriber of this process (embedded) or of every process (Redis
 * pub/sub). Nothing is stored: a message with no subscriber at that moment is gone, so callers persist first.
 */
export interface MessageBus {
  publish(topic: string, message: string): Promise<void>;
  /** Resolves once the subscription is active (later publishes reach it); returns the unsubscribe function. */
  subscribe(topic: string, handler: BusHandler): Promise<() => Promise<void>>;
}

/** Handlers per topic; the first subscriber of a topic and the last unsubscriber are reported. */
class Topics {
  readonly #handlers = new Map<string, Set<BusHandler>>();

  add(topic: string, h: BusHandler): boolean {
    const set = this.#handlers.get(topic);
    if (set) {
      set.add(h);
      return false;
    }
    this.#handlers.set(topic, new Set([h]));
    return true;
  }

  remove(topic: string, h: BusHandler): boolean {
    const set = this.#handlers.get(topic);
    if (!set?.delete(h) || set.size > 0) return false;
    this.#handlers.delete(topic);
    return true;
  }

  emit(topic: string, message: string): void {
    for (const h of [...(this.#handlers.get(topic) ?? [])]) h(message);
  }
}

export function inProcessBus(): MessageBus {
  const topics = new Topics();
  return {
    async publish(topic, message) {
      // Asynchronous like the Redis bus, so callers cannot come to rely on same-tick delivery.
      queueMicrotask(() => topics.emit(topic, message));
    },
    async subscribe(topic, handler) {
      topics.add(topic, handler);
      return async () => void topics.remove(topic, handler);
    },
  };
}

export function redisBus(redis: RedisConnection): MessageBus {
  const topics = new Topics();
  /** SUBSCRIBE in flight or done per topic, so a second subscriber also waits until it is active. */
  const active = new Map<string, Promise<unknown>>();
  let listening = false;
  const channel = (topic: string) => redis.key('bus', topic);
  const prefix = channel('');
  return {
    async publish(topic, message) {
      await redis.commands.publish(channel(topic), message);
    },
    async subscribe(topic, handler) {
      const sub = redis.subscriber();
      if (!listening) {
        listening = true;
        sub.on('message', (ch: string, message: string) => {
          if (ch.startsWith(prefix)) topics.emit(ch.slice(prefix.length), message);
        });
      }
      if (topics.add(topic, handler)) active.set(topic, sub.subscribe(channel(topic)));
      try {
        await active.get(topic);
      } catch (e) {
        // Not subscribed after all: forget it, so the next subscriber of the topic tries again.
        if (topics.remove(topic, handler)) active.delete(topic);
        throw e;
      }
      return async () => {
        if (!topics.remove(topic, handler)) return;
        active.delete(topic);
        await sub.unsubscribe(channel(topic)).catch(() => undefined);
      };
    },
  };
}
