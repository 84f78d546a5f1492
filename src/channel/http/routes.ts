import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { bearerToken } from '../auth.ts';
import { CapCounter } from '../caps.ts';
import { addressRanges, requestClient, type RequestClient } from '../client-address.ts';
import type { ChannelConfig } from '../config.ts';
import { ChannelError, isChannelError, type ChannelErrorCode } from '../errors.ts';
import type { ChannelEvent } from '../membership/index.ts';
import { redirectLocation, type ChannelDirectory, type Placement } from '../placement/index.ts';
import { parseCname, parseLayer, parseProfile, parseUid } from './params.ts';
import { authorizeRead, isCustomer, type ChannelCustomer } from './routes-auth.ts';
import { tokenKey } from '../caps.ts';
import type { Sfu } from '../sfu.ts';
import { trackBitrates } from './track-bitrates.ts';
import { iceServerLinkHeaders, registerIceServerRoute } from './ice-servers.ts';

export interface RouteDeps {
  readonly sfu: Sfu;
  /** The caps on event streams, the trusted addresses, the idle timeout that sets `Retry-After`. */
  readonly config: ChannelConfig;
  readonly clock: Clock;
  readonly log: Logger;
  readonly customer: ChannelCustomer;
  /** Open event streams, ended when the module closes. */
  readonly streams: Set<() => void>;
  /** Which node hosts each channel (always this one without Redis). */
  readonly directory: ChannelDirectory;
  /** How often the bitrate stream samples the tracks (default 1000 ms). */
  readonly bitrateIntervalMs?: number;
}

type Params = { appId: string; cname: string };
type SessionParams = { id: string };

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, if-match',
  'access-control-expose-headers': 'location, etag, link, accept-patch',
};

function sendError(reply: FastifyReply, e: ChannelError): FastifyReply {
  return reply.code(e.status).headers(CORS).send({ error: e.code, reason: e.reason });
}

/** WHIP/WHEP ingest and egress, sessions, membership and its event stream. */
export function registerChannelRoutes(app: FastifyInstance, deps: RouteDeps): void {
  const { sfu } = deps;
  const trusted = addressRanges(deps.config.trustedAddresses);
  const clientOf = (req: FastifyRequest): RequestClient => requestClient(req.socket.remoteAddress, req.headers, trusted);
  const streamCaps = new CapCounter(deps.config.eventStreamCaps);
  // A session its peer abandoned is gone after the idle timeout: a slot may be free by then.
  const retryAfter = String(Math.max(1, Math.ceil(deps.config.idleTimeoutMs / 1000)));
  /** Counts an event stream under its caps (before the stream opens); throws 429 `too_many_streams`. */
  const acquireStream = (token: string | undefined, client: RequestClient): (() => void) => {
    const r = streamCaps.acquire({ token: tokenKey(token), address: client.address });
    if (r.ok) return r.release;
    const setting = r.cap === 'perToken' ? 'channel.maxEventStreamsPerToken' : 'channel.maxEventStreamsPerAddress';
    const holder = r.cap === 'perToken' ? 'this token' : 'this client address';
    throw new ChannelError('too_many_streams', `${holder} already holds ${r.limit} event streams (${setting}); close one or retry later`);
  };
  for (const type of ['application/sdp', 'application/trickle-ice-sdpfrag']) {
    app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
  }

  app.setErrorHandler((err, _req, reply) => {
    if (isChannelError(err)) {
      if (err.status === 429) reply.header('retry-after', err.retryAfterSeconds === undefined ? retryAfter : String(err.retryAfterSeconds));
      return sendError(reply, err);
    }
    const e = err as { statusCode?: number; code?: string; message?: string };
    if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, new ChannelError('unsupported_media_type', 'Content-Type must be application/sdp'));
    }
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
      const code: ChannelErrorCode = 'bad_request';
      return reply.code(e.statusCode).headers(CORS).send({ error: code, reason: e.message ?? 'bad request' });
    }
    deps.log.error({ err }, 'channel: request failed');
    return sendError(reply, new ChannelError('internal', 'internal error; see the server log'));
  });

  const sdpBody = (req: FastifyRequest): string => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/sdp' || typeof req.body !== 'string') {
      throw new ChannelError('unsupported_media_type', 'Content-Type must be application/sdp with an SDP offer body');
    }
    return req.body;
  };

  const created = (reply: FastifyReply, s: { id: string; etag: string; answer: string }, uid: number) =>
    reply
      .code(201)
      .headers({
        ...CORS,
        ...iceServerLinkHeaders(deps, uid),
        'content-type': 'application/sdp',
        location: `/rtc/v1/sessions/${s.id}`,
        etag: `"${s.etag}"`,
        'accept-patch': 'application/trickle-ice-sdpfrag',
      })
      .send(s.answer);

  /** 307 to the node that hosts the channel (RFC 9725 allows redirecting WHIP and WHEP POSTs). */
  const redirect = (req: FastifyRequest, reply: FastifyReply, ownerUrl: string): FastifyReply => {
    const location = redirectLocation(ownerUrl, req.url);
    if (!location) throw new ChannelError('internal', 'the channel is hosted by a node with an unusable URL');
    return reply.code(307).headers({ ...CORS, location }).send();
  };

  const unavailable = (reply: FastifyReply, err: unknown): ChannelError => {
    deps.log.warn({ err: (err as Error)?.message }, 'channel: directory unreachable');
    reply.header('retry-after', '2');
    return new ChannelError('placement_unavailable', 'cannot tell which node hosts this channel now; retry shortly');
  };

  /** Joins here when this node hosts (or now takes) the channel, otherwise redirects to the node that does. */
  const onOwner = async (
    req: FastifyRequest,
    reply: FastifyReply,
    appId: string,
    cname: string,
    join: () => Promise<FastifyReply>,
  ): Promise<FastifyReply> => {
    let joining = false;
    try {
      return await deps.directory.claim(appId, cname, async (p: Placement) => {
        if (p.kind === 'elsewhere') return redirect(req, reply, p.ownerUrl);
        joining = true;
        return join();
      });
    } catch (e) {
      if (joining) throw e;
      throw unavailable(reply, e);
    }
  };

  /** Reads go to the owner too; a channel nobody hosts is answered here (it is empty). */
  const readElsewhere = async (req: FastifyRequest, reply: FastifyReply, appId: string, cname: string): Promise<boolean> => {
    let p: Placement | undefined;
    try {
      p = await deps.directory.owner(appId, cname);
    } catch (e) {
      throw unavailable(reply, e);
    }
    if (p?.kind !== 'elsewhere') return false;
    redirect(req, reply, p.ownerUrl);
    return true;
  };

  const options = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(204).headers({ ...CORS, 'accept-post': 'application/sdp' }).send();

  app.options('/rtc/v1/apps/:appId/channels/:cname/whip', options);
  app.options('/rtc/v1/apps/:appId/channels/:cname/whep', options);
  app.options('/rtc/v1/sessions/:id', options);

  app.post<{ Params: Params }>('/rtc/v1/apps/:appId/channels/:cname/whip', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const cname = parseCname(req.params.cname);
    const uid = parseUid(q.uid);
    const profile = parseProfile(q.profile);
    const offer = sdpBody(req);
    return onOwner(req, reply, req.params.appId, cname, async () => {
      const s = await sfu.publish({
        appId: req.params.appId,
        cname,
        uid,
        profile,
        token: bearerToken(req.headers.authorization, q.token),
        offer,
        client: clientOf(req),
      });
      return created(reply, s, uid);
    });
  });

  app.post<{ Params: Params }>('/rtc/v1/apps/:appId/channels/:cname/whep', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const cname = parseCname(req.params.cname);
    const uid = parseUid(q.uid);
    const publisher = parseUid(q.publisher, 'publisher');
    const profile = parseProfile(q.profile);
    const layer = parseLayer(q.layer);
    const offer = sdpBody(req);
    return onOwner(req, reply, req.params.appId, cname, async () => {
      try {
        const s = await sfu.subscribe({
          appId: req.params.appId,
          cname,
          uid,
          publisher,
          profile,
          layer,
          token: bearerToken(req.headers.authorization, q.token),
          offer,
          client: clientOf(req),
        });
        return created(reply, s, uid);
      } catch (e) {
        // WHEP: nothing published yet is a 409 the player may retry.
        if (isChannelError(e) && e.code === 'publisher_not_found') reply.header('retry-after', '2');
        throw e;
      }
    });
  });

  registerIceServerRoute(app, deps, CORS);

  app.patch<{ Params: SessionParams }>('/rtc/v1/sessions/:id', async (req, reply) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/trickle-ice-sdpfrag' || typeof req.body !== 'string') {
      throw new ChannelError('unsupported_media_type', 'Content-Type must be application/trickle-ice-sdpfrag');
    }
    const restarted = await sfu.patch(req.params.id, req.headers['if-match'], req.body);
    if (restarted === undefined) return reply.code(204).headers(CORS).send();
    return reply
      .code(200)
      .headers({ ...CORS, 'content-type': 'application/trickle-ice-sdpfrag', etag: `"${restarted.etag}"` })
      .send(restarted.frag);
  });

  // reeltime's extension: the size a WHEP viewer draws its video at (a mix recorder on another node), for the
  // simulcast layer that covers it (Sfu.fit). The session URL is the capability, as for PATCH and DELETE.
  app.post<{ Params: SessionParams }>('/rtc/v1/sessions/:id/fit', async (req, reply) => {
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const side = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 8192 ? v : undefined);
    const width = side(body.width);
    const height = side(body.height);
    if (width === undefined || height === undefined) {
      throw new ChannelError('bad_request', 'width and height must be whole numbers of pixels from 1 to 8192');
    }
    sfu.fit(req.params.id, { width, height });
    return reply.code(204).headers(CORS).send();
  });

  app.delete<{ Params: SessionParams }>('/rtc/v1/sessions/:id', async (req, reply) => {
    if (!(await sfu.end(req.params.id, 'deleted'))) {
      throw new ChannelError('session_not_found', 'no such session (it ended or never existed)');
    }
    return reply.code(200).headers(CORS).send();
  });

  // Every channel of an app with someone in it (the console's channel list): the customer's credentials only.
  app.get<{ Params: { appId: string } }>('/rtc/v1/apps/:appId/channels', async (req, reply) => {
    const chApp = sfu.app(req.params.appId);
    if (!isCustomer(req, deps.customer)) {
      throw new ChannelError('unauthorized', 'send the customer credentials (HTTP Basic) to list channels');
    }
    const channels = sfu.membership
      .channels()
      .filter((c) => c.appId === chApp.appId)
      .map((c) => publicSnapshot(sfu, c.appId, c.cname))
      .filter((c) => c.exists);
    return reply.headers(CORS).send({ appId: chApp.appId, channels });
  });

  app.get<{ Params: Params }>('/rtc/v1/apps/:appId/channels/:cname', async (req, reply) => {
    const cname = parseCname(req.params.cname);
    const chApp = sfu.app(req.params.appId);
    authorizeRead(req, chApp, cname, deps.customer, Math.floor(deps.clock.now() / 1000));
    if (await readElsewhere(req, reply, chApp.appId, cname)) return reply;
    return reply.headers(CORS).send(publicSnapshot(sfu, chApp.appId, cname));
  });

  app.get<{ Params: Params }>('/rtc/v1/apps/:appId/channels/:cname/events', async (req, reply) => {
    const cname = parseCname(req.params.cname);
    const chApp = sfu.app(req.params.appId);
    const grant = authorizeRead(req, chApp, cname, deps.customer, Math.floor(deps.clock.now() / 1000));
    if (await readElsewhere(req, reply, chApp.appId, cname)) return reply;
    const client = clientOf(req);
    const release = acquireStream(grant.token, client);
    // A stream read with a token ends when its join privilege does: nothing renews it (docs/channel.md, "Token expiry").
    let expiry: TimerHandle | undefined;
    const { write, stop } = openEventStream(req, reply, deps.streams, () => {
      off();
      release();
      if (expiry) deps.clock.clearTimeout(expiry);
    });
    // The snapshot first, then every change after it, so a client never misses one in between.
    write('snapshot', publicSnapshot(sfu, chApp.appId, cname));
    const off = sfu.membership.subscribe((ev: ChannelEvent) => {
      if (ev.appId !== chApp.appId || ev.cname !== cname) return;
      // With the channel's profile after the event, so a follower on another node knows it (placement/follower.ts).
      write(ev.kind, { ...ev, profile: sfu.membership.snapshot(ev.appId, ev.cname).profile ?? null }, ev.seq);
    });
    if (grant.expiresAt !== undefined) {
      expiry = deps.clock.setTimeout(() => {
        expiry = undefined;
        write('token_expired', { error: 'token_expired', reason: 'the token of this stream expired; reconnect with a new one' });
        stop();
      }, grant.expiresAt * 1000 - deps.clock.now());
    }
  });

  // reeltime's extension: every published track of the app on this node with its bitrate, once per interval
  // (the console's sparklines, docs/channel.md "Track bitrates"). The customer's credentials only.
  app.get<{ Params: { appId: string } }>('/rtc/v1/apps/:appId/track-stats', async (req, reply) => {
    const chApp = sfu.app(req.params.appId);
    if (!isCustomer(req, deps.customer)) {
      throw new ChannelError('unauthorized', 'send the customer credentials (HTTP Basic) to read track statistics');
    }
    const release = acquireStream(undefined, clientOf(req));
    const intervalMs = deps.bitrateIntervalMs ?? 1000;
    let previous = sfu.trackStats(chApp);
    let previousAt = performance.now();
    const sample = () => {
      const current = sfu.trackStats(chApp);
      const at = performance.now();
      write('tracks', { time: deps.clock.now(), intervalMs, tracks: trackBitrates(previous, current, at - previousAt) });
      previous = current;
      previousAt = at;
    };
    // Wall-time sampling, not the injected clock: a display rate, not a lifecycle timer.
    const timer = setInterval(sample, intervalMs);
    timer.unref();
    const { write } = openEventStream(req, reply, deps.streams, () => {
      clearInterval(timer);
      release();
    });
    write('tracks', { time: deps.clock.now(), intervalMs, tracks: trackBitrates([], previous, 0) });
  });
}

/**
 * Answers with an open text/event-stream and returns its writer and its end; `onStop` runs once when the client
 * goes, the stream is stopped or the module closes. A comment line every 15 s keeps proxies from closing an idle
 * stream.
 */
function openEventStream(
  req: FastifyRequest,
  reply: FastifyReply,
  streams: Set<() => void>,
  onStop: () => void,
): { write: (event: string, data: unknown, id?: number) => void; stop: () => void } {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...CORS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15000);
  keepAlive.unref();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    onStop();
    clearInterval(keepAlive);
    streams.delete(stop);
    if (!res.writableEnded) res.end();
  };
  streams.add(stop);
  req.raw.on('close', stop);
  const write = (event: string, data: unknown, id?: number) => {
    if (!res.writableEnded) res.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  return { write, stop };
}

function publicSnapshot(sfu: Sfu, appId: string, cname: string) {
  const s = sfu.membership.snapshot(appId, cname);
  return { appId: s.appId, cname: s.cname, exists: s.participants.length > 0, profile: s.profile ?? null, participants: s.participants };
}
