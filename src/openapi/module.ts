import { inlineScriptsOf, pageHeaders, type OpenApiContribution } from '../http/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { DOCS_PAGE } from './docs-page.ts';
import { buildOpenApiDocument, openApiOwnPaths } from './document.ts';

/**
 * GET /openapi.json and GET /docs on the api role. The document is built once, at registration, from the
 * contributions the composition root hands over (every module's, in the order the document lists them).
 */
export function createOpenApiModule(ctx: ServerContext, contributions: () => readonly OpenApiContribution[]): ReeltimeModule {
  const own = openApiOwnPaths();
  return {
    name: 'openapi',
    register(app) {
      if (!ctx.roles.has('api')) return;
      const body = JSON.stringify(buildOpenApiDocument([...contributions(), own], { serverUrl: ctx.config.publicUrl }));
      app.get('/openapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
      const headers = pageHeaders({ inlineScripts: inlineScriptsOf(DOCS_PAGE) });
      app.get('/docs', async (_req, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(DOCS_PAGE));
    },
    close() {},
  };
}
