import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { inlineScriptsOf, pageHeaders } from '../http/index.ts';
import type { Config } from '../server/config.ts';

const require = createRequire(import.meta.url);

/** Our own page files, read once at registration. */
export const PAGE_FILES: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript',
  'api.js': 'text/javascript',
  'bodies.js': 'text/javascript',
  'channels.js': 'text/javascript',
  'ingress.js': 'text/javascript',
  'record-form.js': 'text/javascript',
  'recordings.js': 'text/javascript',
  'rules.js': 'text/javascript',
  'session.js': 'text/javascript',
  'players.js': 'text/javascript',
  'speakers.js': 'text/javascript',
  'webm-playlist.js': 'text/javascript',
  'layout-preview.js': 'text/javascript',
  'live.js': 'text/javascript',
  'ui.js': 'text/javascript',
  'style.css': 'text/css',
};

/**
 * The few npm files the page imports, served by name (no directory listing, no path from the request reaches the
 * file system): nothing comes from a CDN.
 */
const VENDOR_FILES: Readonly<Record<string, string>> = {
  'preact.mjs': 'preact/dist/preact.mjs',
  'hooks.mjs': 'preact/hooks/dist/hooks.mjs',
  'htm.mjs': 'htm/dist/htm.mjs',
  'hls.mjs': 'hls.js/dist/hls.min.mjs',
};

/** The file inside the installed package (some packages export no package.json, so resolve their main entry). */
function vendorPath(spec: string): string {
  const [pkg, ...rest] = spec.split('/');
  const main = require.resolve(pkg!);
  const marker = `/node_modules/${pkg}/`;
  return `${main.slice(0, main.lastIndexOf(marker) + marker.length)}${rest.join('/')}`;
}

/**
 * Pure TypeScript of the server (no Node API) as one ES module for the page, so the page and the server share one
 * source: the mix recorder's layout function (the layout preview) and the recording vocabulary (status names).
 * Bundled with esbuild (already there to run the server's TypeScript), on first request: loaded then, not at start.
 */
const SHARED_MODULES: Readonly<Record<string, string>> = Object.freeze({
  'mix-layout.mjs': '../media/mix/layout.ts',
  'vocabulary.mjs': '../recording/vocabulary/catalogue.ts',
});

async function bundledModule(source: string): Promise<string> {
  const entry = new URL(source, import.meta.url).pathname;
  const { build } = await import('esbuild');
  return (await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', write: false, minify: true, logLevel: 'silent' }))
    .outputFiles[0]!.text;
}

/** What the page needs to know before sign-in (no secret except the generated development credentials). */
export interface ConsoleSettings {
  readonly env: 'development' | 'production';
  readonly appId: string;
  /** Development with generated credentials only: prefilled in the sign-in form. */
  readonly devCredentials: { readonly customerId: string; readonly customerSecret: string } | null;
  /** Whether POST /rtc/v1/dev/token answers (the record form fetches the recorder's RTC token there). */
  readonly devTokens: boolean;
}

export function consoleSettings(config: Config): ConsoleSettings {
  const dev = config.env === 'development';
  return {
    env: config.env,
    appId: config.appId,
    devCredentials:
      dev && config.generatedCredentials ? { customerId: config.customerId, customerSecret: config.customerSecret } : null,
    devTokens: config.channel.devTokenEndpoint,
  };
}

/** The console page at `/`, its scripts under `/console/`, and the npm files it imports under `/console/vendor/`. */
export function registerConsoleRoutes(app: FastifyInstance, config: Config): void {
  const page = (name: string) => readFileSync(new URL(`./page/${name}`, import.meta.url), 'utf8');
  const html = page('index.html');
  const settings = JSON.stringify(consoleSettings(config));
  const noStore = { 'cache-control': 'no-cache' };
  // The import map is the page's one inline script; recordings may play from another node's (or the public URL's)
  // origin than the one the browser used.
  const headers = pageHeaders({ inlineScripts: inlineScriptsOf(html), anyOrigin: true });
  app.get('/', async (_req, reply) => reply.headers({ ...noStore, ...headers }).type('text/html; charset=utf-8').send(html));
  app.get('/console/settings.json', async (_req, reply) =>
    reply.headers({ 'cache-control': 'no-store' }).type('application/json; charset=utf-8').send(settings),
  );
  for (const [name, type] of Object.entries(PAGE_FILES)) {
    const body = page(name);
    app.get(`/console/${name}`, async (_req, reply) => reply.headers(noStore).type(`${type}; charset=utf-8`).send(body));
  }
  for (const [name, source] of Object.entries(SHARED_MODULES)) {
    let body: string | undefined;
    app.get(`/console/${name}`, async (_req, reply) => {
      body ??= await bundledModule(source);
      return reply.headers(noStore).type('text/javascript; charset=utf-8').send(body);
    });
  }
  for (const [name, spec] of Object.entries(VENDOR_FILES)) {
    const body = readFileSync(vendorPath(spec), 'utf8');
    app.get(`/console/vendor/${name}`, async (_req, reply) =>
      reply.headers({ 'cache-control': 'public, max-age=86400' }).type('text/javascript; charset=utf-8').send(body),
    );
  }
}
