import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Label values of one series; every label of the metric named. */
export type MetricLabels<L extends string> = Readonly<Record<L, string>>;

export interface MetricSpec<L extends string> {
  /** Full Prometheus name, `reeltime_` prefixed (counters end in `_total`, durations in `_seconds`). */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
}

/** One series of a metric read at scrape time. */
export type Sample<L extends string> = readonly [MetricLabels<L>, number];

/**
 * What a module is given to report through: the process's registry, built by the composition root and passed
 * down (no global), so a process reports only the metrics of the modules it runs (docs/metrics.md).
 */
export interface MetricsRegistry {
  /** A counter the caller increments (low-rate events: deliveries, uploads, messages). */
  counter<L extends string>(spec: MetricSpec<L>): Counter<L>;
  histogram<L extends string>(spec: MetricSpec<L> & { readonly buckets: readonly number[] }): Histogram<L>;
  /** A gauge whose series are read at scrape time (series the reader no longer returns disappear). */
  gaugeFrom<L extends string>(spec: MetricSpec<L>, read: () => Iterable<Sample<L>> | Promise<Iterable<Sample<L>>>): void;
  /**
   * A counter read at scrape time from running totals the module keeps as plain numbers: per-packet paths count
   * with `+= 1` instead of a labelled increment. Totals must only grow.
   */
  counterFrom<L extends string>(spec: MetricSpec<L>, read: () => Iterable<Sample<L>>): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
  /** Whether a metric of that name is registered (tests, the dashboard check). */
  has(name: string): boolean;
}

const seriesKey = (labels: Readonly<Record<string, string>>): string => JSON.stringify(Object.entries(labels).sort());

export function createMetricsRegistry(opts: { readonly processMetrics?: boolean } = {}): MetricsRegistry {
  const registry = new Registry();
  // Node's own CPU, memory, event-loop lag and handles (process_*, nodejs_*): standard names dashboards know.
  if (opts.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const base = <L extends string>(spec: MetricSpec<L>) => ({
    name: spec.name,
    help: spec.help,
    labelNames: [...spec.labelNames],
    registers: [registry],
  });
  return {
    counter: (spec) => new Counter(base(spec)),
    histogram: (spec) => new Histogram({ ...base(spec), buckets: [...spec.buckets] }),
    gaugeFrom(spec, read) {
      new Gauge({
        ...base(spec),
        async collect() {
          const samples = await read();
          this.reset();
          for (const [labels, value] of samples) this.set(labels, value);
        },
      });
    },
    counterFrom(spec, read) {
      const seen = new Map<string, number>();
      new Counter({
        ...base(spec),
        collect() {
          for (const [labels, value] of read()) {
            const key = seriesKey(labels);
            const delta = value - (seen.get(key) ?? 0);
            // The series exists from its first read, at 0 too, so rate() has a starting point.
            if (delta >= 0) {
              this.inc(labels, delta);
              seen.set(key, value);
            }
          }
        },
      });
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    has: (name) => registry.getSingleMetric(name) !== undefined,
  };
}

/** Seconds buckets for requests and uploads: 5 ms to 60 s. */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]);
