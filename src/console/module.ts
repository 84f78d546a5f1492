import type { ReeltimeModule, ServerContext } from '../server/module.ts';
import { registerConsoleRoutes } from './routes.ts';

/** The console page (docs/console.md): served by processes with the api role; it talks only to public APIs. */
export function createConsoleModule(ctx: ServerContext): ReeltimeModule {
  return {
    name: 'console',
    openapi: {
      tags: [],
      paths: {},
      undocumented: [
        { method: 'GET', url: '/', reason: 'the console page (HTML, static)' },
        { method: 'GET', url: '/console/*', reason: "the console page's scripts, settings and vendored npm files (static assets)" },
      ],
    },
    register(app) {
      if (ctx.roles.has('api')) registerConsoleRoutes(app, ctx.config);
    },
    close() {},
  };
}
