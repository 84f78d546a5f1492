/** /healthz and /readyz in the OpenAPI document (routes.ts registers them). */
import type { OpenApiContribution, OpenApiObject as Json } from '../http/index.ts';

export function healthOpenApi(): OpenApiContribution {
  const str = { type: 'string' };
  const roles = { type: 'array', items: str, description: 'The roles this process runs.' };
  const checks = { type: 'object', additionalProperties: { type: 'object' }, description: 'Each dependency check and its outcome.' };
  const json = (schema: Json) => ({ 'application/json': { schema } });
  return {
    tags: ['Operations'],
    paths: {
      '/healthz': {
        get: {
          operationId: 'healthz',
          tags: ['Operations'],
          summary: 'Alive: the process serves HTTP (every role)',
          security: [{}],
          responses: { '200': { description: 'Alive.', content: json({ type: 'object', required: ['status', 'roles'], properties: { status: { const: 'ok' }, roles } }) } },
        },
      },
      '/readyz': {
        get: {
          operationId: 'readyz',
          tags: ['Operations'],
          summary: 'Ready: every dependency answers (every role); 503 names the failing ones',
          security: [{}],
          responses: {
            '200': { description: 'Ready.', content: json({ type: 'object', required: ['status', 'roles', 'checks'], properties: { status: { const: 'ready' }, roles, checks } }) },
            '503': {
              description: 'A dependency does not answer.',
              content: json({ type: 'object', required: ['status', 'roles', 'failing', 'checks'], properties: { status: { const: 'unavailable' }, roles, failing: { type: 'array', items: str }, checks } }),
            },
          },
        },
      },
    },
  };
}
