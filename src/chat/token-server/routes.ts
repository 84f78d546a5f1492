import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthDecision, CallerAuth } from './caller-auth.ts';
import type { ChatTokenService, TokenReply } from './token-service.ts';

/**
 * Any origin may ask for tokens (the sample's @CrossOrigin). Browsers send their assertion in `Authorization`,
 * which a preflight must list by name (`*` does not cover it); cookies are never used, so `*` stays safe.
 */
function cors(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'GET, OPTIONS');
  const asked = req.headers['access-control-request-headers'];
  const extra = typeof asked === 'string' ? asked.split(',').map((h) => h.trim()).filter((h) => h && h.toLowerCase() !== 'authorization') : [];
  reply.header('access-control-allow-headers', ['Authorization', ...extra].join(', '));
  reply.header('access-control-expose-headers', 'WWW-Authenticate');
  reply.header('access-control-max-age', '1800');
}

function send(req: FastifyRequest, reply: FastifyReply, r: TokenReply): FastifyReply {
  cors(req, reply);
  // A token is a credential: no shared cache may keep it, and answers differ by caller.
  reply.header('cache-control', 'no-store');
  reply.header('vary', 'Authorization');
  return reply.code(r.status).type('text/plain; charset=utf-8').send(r.body);
}

function refused(req: FastifyRequest, reply: FastifyReply, d: Exclude<AuthDecision, { ok: true }>): FastifyReply {
  if (d.challenge) reply.header('www-authenticate', d.challenge);
  return send(req, reply, { status: d.status, body: d.body });
}

function preflight(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  cors(req, reply);
  return reply.code(204).send();
}

/**
 * GET /chat/app/token and GET /chat/user/{chatUserName}/token, plain text, CORS allowed. The caller is checked
 * first (`auth`), so an unauthenticated request never reaches the users API and never registers anyone.
 */
export function registerTokenRoutes(app: FastifyInstance, service: ChatTokenService, auth: CallerAuth): void {
  app.get('/chat/app/token', (req, reply) => {
    const d = auth.appToken(req.headers.authorization);
    return d.ok ? send(req, reply, service.appToken()) : refused(req, reply, d);
  });
  app.options('/chat/app/token', preflight);
  // A wildcard so an empty or over-long name reaches the spec's checks instead of the router's 404.
  app.get('/chat/user/*', async (req, reply) => {
    const m = /^(.*)\/token$/s.exec((req.params as { '*': string })['*']);
    if (!m || m[1] === undefined || m[1].includes('/')) return send(req, reply, { status: 404, body: 'not found' });
    const d = auth.userToken(req.headers.authorization, m[1]);
    if (!d.ok) return refused(req, reply, d);
    return send(req, reply, await service.userToken(m[1]));
  });
  app.options('/chat/user/*', preflight);
}
