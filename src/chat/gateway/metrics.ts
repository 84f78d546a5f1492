import type { MetricsRegistry } from '../../metrics/index.ts';
import type { ChatGateway } from './gateway.ts';

/** The gateway's connections and messages on /metrics (docs/metrics.md), read from its running totals. */
export function registerChatMetrics(metrics: MetricsRegistry, gateway: ChatGateway): void {
  metrics.gaugeFrom(
    { name: 'reeltime_chat_connections', help: 'Open chat WebSocket connections (logged_in: yes after a successful login)', labelNames: ['logged_in'] },
    () => {
      const c = gateway.connections();
      return [
        [{ logged_in: 'yes' }, c.loggedIn],
        [{ logged_in: 'no' }, Math.max(0, c.open - c.loggedIn)],
      ];
    },
  );
  metrics.counterFrom(
    {
      name: 'reeltime_chat_messages_total',
      help: 'Chat messages: sent (stored and published by a sender on this process), pushed (to a recipient connected here)',
      labelNames: ['direction'],
    },
    () => [
      [{ direction: 'sent' }, gateway.counts.sent],
      [{ direction: 'pushed' }, gateway.counts.pushed],
    ],
  );
}
