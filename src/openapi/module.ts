import { inlineScriptsOf, pageHeaders } from '../http/index.ts';
import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { DOCS_PAGE } from './docs-page.ts';
import { buildOpenApiDocument } from './document.ts';

/** GET /openapi.json and GET /docs on the api role; the document is built once, at registration. */
export function createOpenApiModule(ctx: ServerContext): ReeltimeModule {
  return {
    name: 'openapi',
    register(app) {
      if (!ctx.roles.has('api')) return;
      const body = JSON.stringify(buildOpenApiDocument({ serverUrl: ctx.config.publicUrl }));
      app.get('/openapi.json', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
      const headers = pageHeaders({ inlineScripts: inlineScriptsOf(DOCS_PAGE) });
      app.get('/docs', async (_req, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(DOCS_PAGE));
    },
    close() {},
  };
}
