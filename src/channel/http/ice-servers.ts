import type { FastifyInstance } from 'fastify';
import { iceServerLinks, turnCredentials, type IceServer } from '../turn/index.ts';
import { parseCname, parseUid } from './params.ts';
import { authorizeRead, type ChannelCustomer } from './routes-auth.ts';
import type { Clock } from '../../clock/index.ts';
import type { ChannelConfig } from '../config.ts';
import type { Sfu } from '../sfu.ts';

interface IceServerDeps {
  readonly config: Pick<ChannelConfig, 'turn'>;
  readonly clock: Clock;
  readonly sfu: Pick<Sfu, 'app'>;
  readonly customer: ChannelCustomer;
}

/** The TURN entry for one user now, or undefined when the node hands out no TURN servers. */
function turnFor(deps: Pick<IceServerDeps, 'config' | 'clock'>, uid: number, notAfterSec?: number): IceServer | undefined {
  const settings = deps.config.turn;
  if (settings === undefined) return undefined;
  return turnCredentials(settings, { user: String(uid), nowSec: Math.floor(deps.clock.now() / 1000), notAfterSec });
}

/** The `Link` headers of a WHIP/WHEP 201 (RFC 9725 §4.6): the TURN servers with this user's credentials. */
export function iceServerLinkHeaders(deps: Pick<IceServerDeps, 'config' | 'clock'>, uid: number): Record<string, string[]> {
  const server = turnFor(deps, uid);
  return server ? { link: iceServerLinks(server) } : {};
}

/**
 * reeltime's extension: `GET …/channels/:cname/ice-servers` answers `{ iceServers }` for RTCPeerConnection, so a
 * client can gather TURN candidates before its WHIP/WHEP offer (the call page does). Same authorization as reading
 * the channel; the credentials never outlive the token.
 */
export function registerIceServerRoute(app: FastifyInstance, deps: IceServerDeps, headers: Record<string, string>): void {
  app.get<{ Params: { appId: string; cname: string } }>('/rtc/v1/apps/:appId/channels/:cname/ice-servers', async (req, reply) => {
    const cname = parseCname(req.params.cname);
    const chApp = deps.sfu.app(req.params.appId);
    const grant = authorizeRead(req, chApp, cname, deps.customer, Math.floor(deps.clock.now() / 1000));
    const uid = parseUid((req.query as Record<string, unknown>).uid);
    const server = turnFor(deps, uid, grant.expiresAt);
    // Credentials: never cached by the browser or a proxy.
    return reply.headers({ ...headers, 'cache-control': 'no-store' }).send({ iceServers: server ? [server] : [] });
  });
}
