import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** What a page may load besides its own origin. */
export interface PagePolicy {
  /** Inline `<script>` texts the page carries (an import map, a module), allowed by their SHA-256. */
  readonly inlineScripts?: readonly string[];
  /**
   * Fetches, media and images may come from any http(s) origin: in a cluster a channel answers 307 to the node that
   * hosts it, and a recording plays from the node that recorded it, origins known only then. Scripts, styles and
   * workers stay this origin's, so an injected URL still cannot run code.
   */
  readonly anyOrigin?: boolean;
}

/** The texts of a page's inline `<script>` elements (those without `src`), for `PagePolicy.inlineScripts`. */
export function inlineScriptsOf(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter((m) => !/\bsrc\s*=/i.test(m[1]!)).map((m) => m[2]!);
}

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Headers of an HTML page (the console, the call page, /docs): a Content-Security-Policy that lets in only this
 * origin's scripts (inline ones by hash), media and workers also from `blob:` (hls.js and the WebM player feed a
 * MediaSource), no plugins, no framing; no referrer.
 */
export function pageHeaders(policy: PagePolicy = {}): Record<string, string> {
  const remote = policy.anyOrigin ? "'self' http: https:" : "'self'";
  const scripts = ["'self'", ...(policy.inlineScripts ?? []).map(hashOf)].join(' ');
  const csp = [
    `default-src 'self'`,
    `script-src ${scripts}`,
    // Inline <style> blocks and style attributes only: a style cannot run code.
    `style-src 'self' 'unsafe-inline'`,
    `img-src ${remote} data: blob:`,
    `media-src ${remote} blob:`,
    `worker-src 'self' blob:`,
    `connect-src ${remote}`,
    `object-src 'none'`,
    `base-uri 'none'`,
    `form-action 'self'`,
    `frame-ancestors 'none'`,
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

/** The policy of HTML nobody gave one (an error page): nothing loads, nothing frames it. */
const DEFAULT_HTML_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `Retry-After` of a 429 whose route named none (every 429 carries one). */
const DEFAULT_RETRY_AFTER_SECONDS = '1';

/**
 * Root hook on every response: `X-Content-Type-Options: nosniff`; HTML without a policy gets a closed one;
 * a 429 without `Retry-After` gets one; and an answer given before the request's body was read (a refusal in
 * `onRequest`) closes the connection, so the rest of the body is never read.
 */
export function installResponseHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html') && !reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', DEFAULT_HTML_POLICY);
      reply.header('referrer-policy', 'no-referrer');
    }
    if (reply.statusCode === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', DEFAULT_RETRY_AFTER_SECONDS);
    // (A request without a body may not be marked complete yet when a synchronous route answers: it has none to read.)
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && !req.raw.complete) reply.header('connection', 'close');
  });
}
