import { LATENCY_BUCKETS, type MetricsRegistry } from '../metrics/index.ts';
import type { UploadMeter, UploadSpool } from './spool/index.ts';

/**
 * The spool's backlog and upload attempts on /metrics (docs/metrics.md). `vendor` is the storageConfig vendor
 * number, or `local` when development routes every session to the local bucket.
 */
export function registerStorageMetrics(metrics: MetricsRegistry, spool: () => UploadSpool, now: () => number): UploadMeter {
  const backlog = () => spool().backlog();
  metrics.gaugeFrom({ name: 'reeltime_spool_files', help: 'Files in the upload spool waiting for the bucket', labelNames: [] }, () => [[{}, backlog().files]]);
  metrics.gaugeFrom({ name: 'reeltime_spool_bytes', help: 'Bytes in the upload spool waiting for the bucket', labelNames: [] }, () => [[{}, backlog().bytes]]);
  metrics.gaugeFrom(
    { name: 'reeltime_spool_oldest_age_seconds', help: 'Age of the oldest file waiting in the upload spool (0 when empty)', labelNames: [] },
    () => {
      const oldest = backlog().oldestEnqueuedAt;
      return [[{}, oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1000)]];
    },
  );
  const duration = metrics.histogram({
    name: 'reeltime_upload_duration_seconds',
    help: 'Upload attempts from the spool to the bucket, by vendor and outcome',
    labelNames: ['vendor', 'outcome'],
    buckets: LATENCY_BUCKETS,
  });
  const failures = metrics.counter({
    name: 'reeltime_upload_failures_total',
    help: 'Failed upload attempts (kept in the spool and retried), by vendor and kind (config: credentials, bucket; transient)',
    labelNames: ['vendor', 'kind'],
  });
  return {
    attempt(vendor, seconds, outcome, failure) {
      duration.observe({ vendor, outcome }, seconds);
      if (outcome === 'failed') failures.inc({ vendor, kind: failure ?? 'transient' });
    },
  };
}
