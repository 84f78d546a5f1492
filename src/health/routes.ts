import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log/index.ts';
import { checkReadiness, type ReadinessCheck } from './readiness.ts';

export interface HealthRoutesOptions {
  readonly roles: readonly string[];
  readonly checks: readonly ReadinessCheck[];
  readonly timeoutMs: number;
  readonly log: Logger;
}

/**
 * `/healthz`: alive (the process serves HTTP), for restarts. `/readyz`: every dependency answers, for load
 * balancers; 503 names the failing ones (docs/deployment.md).
 */
export function registerHealthRoutes(app: FastifyInstance, opts: HealthRoutesOptions): void {
  app.get('/healthz', async () => ({ status: 'ok', roles: opts.roles }));
  app.get('/readyz', async (_req, reply) => {
    const r = await checkReadiness(opts.checks, opts.timeoutMs, (name, err) =>
      opts.log.warn({ check: name, err: (err as Error)?.message }, 'readiness check failed'),
    );
    reply.header('cache-control', 'no-store');
    if (r.ready) return { status: 'ready', roles: opts.roles, checks: r.checks };
    return reply.code(503).send({ status: 'unavailable', roles: opts.roles, failing: r.failing, checks: r.checks });
  });
}
