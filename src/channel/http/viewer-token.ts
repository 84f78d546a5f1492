import { buildRtcTokenWithUid } from '@reeltime/token';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock/index.ts';
import { ChannelError } from '../errors.ts';
import type { Sfu } from '../sfu.ts';
import { parseCname, parseUid } from './params.ts';
import { isCustomer, type ChannelCustomer } from './routes-auth.ts';

/** How long a viewer token's join privilege lasts: a WHEP view it opened ends then (`token_expired`). */
export const VIEWER_TOKEN_SECONDS = 3600;

/** The builders' role number for a subscriber (join only, no publish privileges). */
const SUBSCRIBER = 2;

export interface ViewerTokenDeps {
  readonly sfu: Pick<Sfu, 'app'>;
  readonly customer: ChannelCustomer;
  readonly clock: Clock;
}

/**
 * reeltime's extension: a subscriber-only RTC token for one channel and uid, for the holder of the customer's
 * credentials (the console's live view of a recording). The customer can already have the channel recorded, which
 * sees every publisher; this lets the same holder watch over WHEP without the app certificate leaving the server.
 */
export function registerViewerTokenRoute(app: FastifyInstance, deps: ViewerTokenDeps): void {
  app.post<{ Params: { appId: string; cname: string } }>('/rtc/v1/apps/:appId/channels/:cname/viewer-token', async (req, reply) => {
    const chApp = deps.sfu.app(req.params.appId);
    if (!isCustomer(req, deps.customer)) {
      throw new ChannelError('unauthorized', 'send the customer credentials (HTTP Basic) for a viewer token');
    }
    const cname = parseCname(req.params.cname);
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const uid = parseUid(typeof body.uid === 'number' ? String(body.uid) : body.uid);
    // An app without certificate checks no token (Agora's testing mode): there is none to give.
    const token =
      chApp.appCertificate === undefined
        ? null
        : buildRtcTokenWithUid(chApp.appId, chApp.appCertificate, cname, uid, SUBSCRIBER, VIEWER_TOKEN_SECONDS, VIEWER_TOKEN_SECONDS, {
            issueTs: Math.floor(deps.clock.now() / 1000),
          });
    return reply.header('cache-control', 'no-store').send({ appId: chApp.appId, cname, uid, token, expiresIn: VIEWER_TOKEN_SECONDS });
  });
}
