/**
 * The OpenAPI 3.1 document of reeltime's public HTTP routes, assembled from what each module says about its own
 * routes (`ReeltimeModule.openapi`, written next to them): paths, named schemas, security schemes. This folder
 * knows no module; docs/client.md says what is covered, and routes-documented.test.ts that nothing is missing.
 */
import type { OpenApiContribution, OpenApiObject as Json } from '../http/index.ts';

export const OPENAPI_VERSION = '3.1.1';

/** Security schemes several modules' operations use. */
const SHARED_SECURITY_SCHEMES: Readonly<Record<string, Json>> = {
  basicAuth: { type: 'http', scheme: 'basic', description: 'Customer ID and customer secret (recording API, channel reads).' },
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'AccessToken2', description: 'An RTC or chat token (docs/token.md).' },
};

/** /openapi.json and /docs themselves. */
export function openApiOwnPaths(): OpenApiContribution {
  return {
    tags: ['Operations'],
    paths: {
      '/openapi.json': {
        get: {
          operationId: 'openApiDocument',
          tags: ['Operations'],
          summary: 'This OpenAPI 3.1 document (api role)',
          security: [{}],
          responses: { '200': { description: 'The document.', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
      '/docs': {
        get: {
          operationId: 'docsPage',
          tags: ['Operations'],
          summary: 'A reference page that reads /openapi.json (api role; loads nothing from beyond this server)',
          security: [{}],
          responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
        },
      },
    },
  };
}

export interface DocumentOptions {
  /** Base URL printed under `servers` (the one this server answers at). */
  readonly serverUrl?: string;
  readonly version?: string;
}

/** Merges entries into `into`, refusing a name two contributions both define (one source of truth per path). */
function merge(into: Record<string, Json>, entries: Readonly<Record<string, Json>> | undefined, what: string): void {
  for (const [name, value] of Object.entries(entries ?? {})) {
    if (name in into) throw new Error(`OpenAPI ${what} ${name} is contributed twice`);
    into[name] = value;
  }
}

/** The whole document (plain JSON data); contributions in the order their tags and paths should be listed. */
export function buildOpenApiDocument(contributions: readonly OpenApiContribution[], opts: DocumentOptions = {}): Json {
  const tags: string[] = [];
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = {};
  const securitySchemes: Record<string, Json> = { ...SHARED_SECURITY_SCHEMES };
  for (const c of contributions) {
    for (const t of c.tags) if (!tags.includes(t)) tags.push(t);
    merge(paths, c.paths, 'path');
    merge(schemas, c.schemas, 'schema');
    merge(securitySchemes, c.securitySchemes, 'security scheme');
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'reeltime',
      version: opts.version ?? '0.1.0',
      description:
        'Cloud recording REST service (the hosted service\'s paths and bodies), real-time channels (WHIP/WHEP), chat token server and users API, and the local bucket. See docs/recording-api.md and docs/errors.md.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
    tags: tags.map((name) => ({ name })),
    paths,
    components: { schemas, securitySchemes },
  };
}
