// Prometheus metrics (docs/metrics.md): the registry the composition root builds and hands to each module, the
// /metrics route with its access rule, and the HTTP request timer. A leaf: it knows no module.
export type { Counter, Histogram } from 'prom-client';
export { decideMetricsAccess, hasProxyHeader, isLoopback, PROXY_HEADERS, type AccessDecision, type MetricsAccess, type MetricsRequest } from './access.ts';
export { createMetricsRegistry, LATENCY_BUCKETS, type MetricLabels, type MetricSpec, type MetricsRegistry, type Sample } from './registry.ts';
export { instrumentHttp, registerMetricsRoute } from './routes.ts';
export { metricsOpenApi } from './openapi.ts';
