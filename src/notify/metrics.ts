import { LATENCY_BUCKETS, type MetricsRegistry } from '../metrics/index.ts';
import type { DeliveryMeter } from './dispatcher.ts';

/** Webhook attempts on /metrics (docs/metrics.md): every process that emits events delivers them. */
export function registerNotifyMetrics(metrics: MetricsRegistry): DeliveryMeter {
  const attempts = metrics.counter({
    name: 'reeltime_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered; retrying: failed, retry scheduled; failed: given up)',
    labelNames: ['outcome'],
  });
  const duration = metrics.histogram({
    name: 'reeltime_webhook_delivery_duration_seconds',
    help: 'Webhook delivery attempts, request to answer (or timeout), by outcome',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
  });
  return (outcome, seconds) => {
    attempts.inc({ outcome });
    duration.observe({ outcome }, seconds);
  };
}
