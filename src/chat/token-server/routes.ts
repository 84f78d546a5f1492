import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChatTokenService, TokenReply } from './token-service.ts';

/** Any origin may ask for tokens (the sample's @CrossOrigin); credentials are not used. */
function cors(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-allow-methods', 'GET, OPTIONS');
  const asked = req.headers['access-control-request-headers'];
  reply.header('access-control-allow-headers', typeof asked === 'string' && asked ? asked : '*');
  reply.header('access-control-max-age', '1800');
}

function send(req: FastifyRequest, reply: FastifyReply, r: TokenReply): FastifyReply {
  cors(req, reply);
  return reply.code(r.status).type('text/plain; charset=utf-8').send(r.body);
}

function preflight(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  cors(req, reply);
  return reply.code(204).send();
}

/** GET /chat/app/token and GET /chat/user/{chatUserName}/token, plain text, CORS allowed. */
export function registerTokenRoutes(app: FastifyInstance, service: ChatTokenService): void {
  app.get('/chat/app/token', (req, reply) => send(req, reply, service.appToken()));
  app.options('/chat/app/token', preflight);
  // A wildcard so an empty or over-long name reaches the spec's checks instead of the router's 404.
  app.get('/chat/user/*', async (req, reply) => {
    const m = /^(.*)\/token$/s.exec((req.params as { '*': string })['*']);
    if (!m || m[1] === undefined || m[1].includes('/')) return send(req, reply, { status: 404, body: 'not found' });
    return send(req, reply, await service.userToken(m[1]));
  });
  app.options('/chat/user/*', preflight);
}
