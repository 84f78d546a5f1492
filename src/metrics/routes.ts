import type { FastifyInstance } from 'fastify';
import { decideMetricsAccess, hasProxyHeader, type MetricsAccess } from './access.ts';
import { LATENCY_BUCKETS, type MetricsRegistry } from './registry.ts';

/**
 * Times every request by route pattern (never the raw URL: it would carry ids and make one series per session)
 * and status. A root hook, so it sees the routes every module registers after it.
 */
export function instrumentHttp(app: FastifyInstance, metrics: MetricsRegistry): void {
  const requests = metrics.histogram({
    name: 'reeltime_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}

/** `GET /metrics` in the Prometheus text format, for the callers `access` lets in (docs/metrics.md). */
export function registerMetricsRoute(app: FastifyInstance, metrics: MetricsRegistry, access: MetricsAccess): void {
  app.get('/metrics', async (req, reply) => {
    const decision = decideMetricsAccess(access, {
      remoteAddress: req.socket.remoteAddress,
      authorization: req.headers.authorization,
      forwarded: hasProxyHeader(req.headers),
    });
    reply.header('cache-control', 'no-store');
    if (!decision.ok) {
      if (decision.status === 401) reply.header('www-authenticate', 'Bearer realm="metrics"');
      return reply.code(decision.status).send({ error: decision.status === 401 ? 'unauthorized' : 'forbidden', reason: decision.reason });
    }
    const { contentType, body } = await metrics.scrape();
    return reply.type(contentType).send(body);
  });
}
