/** /metrics in the OpenAPI document (routes.ts registers it), with its own security scheme. */
import type { OpenApiContribution } from '../http/index.ts';

export function metricsOpenApi(): OpenApiContribution {
  return {
    tags: ['Operations'],
    paths: {
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['Operations'],
          summary: 'Prometheus metrics (docs/metrics.md)',
          description: 'Callers on this host only, unless REELTIME_METRICS_TOKEN is set: then any address with that bearer token.',
          security: [{}, { metricsToken: [] }],
          responses: {
            '200': { description: 'The Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
            '401': { description: 'A token is configured and none was sent.' },
            '403': { description: 'A wrong token, or a caller beyond this host without a configured token.' },
          },
        },
      },
    },
    securitySchemes: {
      metricsToken: { type: 'http', scheme: 'bearer', description: 'The configured metrics token (REELTIME_METRICS_TOKEN), for /metrics only.' },
    },
  };
}
