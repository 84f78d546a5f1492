import { readFileSync } from 'node:fs';
import { buildRtcTokenWithUid } from '@reeltime/token';
import type { FastifyInstance } from 'fastify';
import { inlineScriptsOf, pageHeaders } from '../../http/index.ts';
import type { Config } from '../../server/config.ts';
import { ChannelError } from '../errors.ts';
import { parseCname, parseUid } from './params.ts';

const asset = (name: string) => readFileSync(new URL(`./page/${name}`, import.meta.url), 'utf8');

/** The call page (`/rtc/`) and, in development, the endpoint that gives it tokens for the primary app. */
export function registerPageRoutes(app: FastifyInstance, config: Config): void {
  const html = asset('index.html');
  const js = asset('call.js');
  app.get('/rtc', async (_req, reply) => reply.redirect('/rtc/'));
  const headers = pageHeaders({ inlineScripts: inlineScriptsOf(html), anyOrigin: true });
  app.get('/rtc/', async (_req, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(html));
  app.get('/rtc/call.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(js));

  // Development only: a real deployment's business server mints tokens; this stands in for it.
  app.post('/rtc/v1/dev/token', async (req, reply) => {
    if (!config.channel.devTokenEndpoint) {
      throw new ChannelError('not_enabled', 'the development token endpoint is off (channel.devTokenEndpoint)');
    }
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const cname = parseCname(typeof body.cname === 'string' ? body.cname : undefined);
    const uid = parseUid(typeof body.uid === 'number' ? String(body.uid) : body.uid);
    const role = body.role === 'subscriber' ? 2 : 1;
    const expire = 3600;
    const token = buildRtcTokenWithUid(config.appId, config.appCertificate, cname, uid, role, expire, expire);
    return reply.send({ appId: config.appId, cname, uid, token, expiresIn: expire });
  });
}
