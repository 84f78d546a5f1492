/**
 * The channel API's part of the OpenAPI document: WHIP/WHEP (SDP bodies), the session's trickle ICE and leave,
 * channel reads, the viewer token and the development token endpoint. Beside routes.ts, viewer-token.ts and
 * page-routes.ts, which register them.
 */
import {
  jsonResponse as json,
  openApiParam as param,
  textResponse as text,
  type OpenApiContribution,
  type OpenApiObject as Json,
} from '../../http/index.ts';

const channelError: Json = {
  type: 'object',
  required: ['error', 'reason'],
  properties: { error: { type: 'string', description: 'Stable error code (docs/channel.md).' }, reason: { type: 'string' } },
};

const jsonBody = (schema: Json): Json => ({ required: true, content: { 'application/json': { schema } } });

/** The answer of the two token routes (viewer and development): the token for one channel and uid, and its lifetime. */
const tokenAnswer = (token: Json): Json =>
  json(
    {
      type: 'object',
      required: ['appId', 'cname', 'uid', 'token', 'expiresIn'],
      properties: {
        appId: { type: 'string' },
        cname: { type: 'string' },
        uid: { type: 'integer' },
        token,
        expiresIn: { type: 'integer', description: 'Seconds the token and its privileges stay valid.' },
      },
    },
    'The token.',
  );

function channelPaths(): Record<string, Json> {
  const ch = [param('appId', 'path', 'App ID.'), param('cname', 'path', 'Channel name.')];
  const sdpOffer = { required: true, content: { 'application/sdp': { schema: { type: 'string' } } } };
  const created = {
    ...text('application/sdp', 'The SDP answer; Location names the session (PATCH for trickle ICE, DELETE to leave).'),
    headers: {
      Location: { schema: { type: 'string' } },
      ETag: { schema: { type: 'string' } },
      Link: { schema: { type: 'string' }, description: 'With channel.turnUrls: one per TURN URL, rel="ice-server" with short-lived credentials (RFC 9725 §4.6).' },
    },
  };
  const failed = { '4XX': json(channelError, 'Refused (bad token, unknown channel, bad SDP…).') };
  const tokenQuery = param('token', 'query', 'RTC token, when no Authorization header is sent.', false);
  const media = (id: string, summary: string, extra: Json[]): Json => ({
    post: {
      operationId: id,
      tags: ['Channels'],
      summary,
      security: [{ bearerAuth: [] }, {}],
      parameters: [...ch, param('uid', 'query', 'User ID, 1..4294967295.', true), ...extra, tokenQuery],
      requestBody: sdpOffer,
      responses: { '201': created, ...failed },
    },
  });
  const read = { security: [{ basicAuth: [] }, { bearerAuth: [] }], parameters: ch, tags: ['Channels'] };
  return {
    '/rtc/v1/apps/{appId}/channels/{cname}/whip': media('whip', 'Publish into a channel (WHIP)', [
      param('profile', 'query', 'communication or live.', false),
    ]),
    '/rtc/v1/apps/{appId}/channels/{cname}/whep': media('whep', "Play a publisher's tracks (WHEP)", [
      param('publisher', 'query', 'uid of the publisher to play.', true),
      param('profile', 'query', 'communication or live.', false),
      param('layer', 'query', 'auto (default: the encoding the viewer\'s reported loss allows), high or low: which encoding of a simulcast publisher.', false),
    ]),
    '/rtc/v1/sessions/{id}': {
      parameters: [param('id', 'path', 'Session from the Location header.')],
      patch: {
        operationId: 'trickleIce',
        tags: ['Channels'],
        summary: 'Send ICE candidates (trickle ICE, If-Match: the ETag) or restart ICE (If-Match: *)',
        parameters: [param('If-Match', 'header', 'The session ETag (trickle) or * (ICE restart, RFC 9725 section 4.3.2).', true)],
        requestBody: { required: true, content: { 'application/trickle-ice-sdpfrag': { schema: { type: 'string' } } } },
        responses: {
          '200': text('application/trickle-ice-sdpfrag', "ICE restarted: the node's new credentials and candidates; a new ETag."),
          '204': { description: 'Candidates applied.' },
          ...failed,
        },
      },
      delete: { operationId: 'leave', tags: ['Channels'], summary: 'Leave (end the session)', responses: { '200': { description: 'Ended.' }, ...failed } },
    },
    '/rtc/v1/apps/{appId}/channels/{cname}': {
      get: {
        ...read,
        operationId: 'channel',
        summary: 'Who is in a channel and what they publish',
        responses: { '200': json({ type: 'object' }, 'Participants and their tracks.'), ...failed },
      },
    },
    '/rtc/v1/apps/{appId}/channels/{cname}/events': {
      get: {
        ...read,
        operationId: 'channelEvents',
        summary: 'Membership changes as server-sent events',
        responses: { '200': text('text/event-stream', 'Events: snapshot, then joins, leaves and track changes.'), ...failed },
      },
    },
    '/rtc/v1/apps/{appId}/channels/{cname}/ice-servers': {
      get: {
        ...read,
        parameters: [...ch, param('uid', 'query', 'User ID of the token.', true), tokenQuery],
        operationId: 'iceServers',
        summary: "TURN servers with short-lived credentials for RTCPeerConnection, before the WHIP/WHEP offer (reeltime's extension)",
        responses: { '200': json({ type: 'object' }, '{iceServers: [{urls, username, credential}]} (empty without channel.turnUrls).'), ...failed },
      },
    },
    '/rtc/v1/apps/{appId}/channels': {
      get: {
        operationId: 'channels',
        tags: ['Channels'],
        summary: "Every channel of the app with someone in it, with participants and tracks (the console's list; reeltime's extension)",
        security: [{ basicAuth: [] }],
        parameters: [ch[0]],
        responses: { '200': json({ type: 'object' }, '{appId, channels: [snapshot]}.'), ...failed },
      },
    },
    '/rtc/v1/apps/{appId}/track-stats': {
      get: {
        operationId: 'trackStats',
        tags: ['Channels'],
        summary: "Every published track's RTP totals and bit rate, each second, as server-sent events (reeltime's extension)",
        security: [{ basicAuth: [] }],
        parameters: [ch[0]],
        responses: { '200': text('text/event-stream', 'tracks events: {time, intervalMs, tracks: [{cname, uid, kind, codec, packets, bytes, bitrateBps}]}.'), ...failed },
      },
    },
    '/rtc/v1/sessions/{id}/fit': {
      post: {
        operationId: 'fitViewerLayer',
        tags: ['Channels'],
        summary: "The size a WHEP viewer draws its publisher's video at: the smallest simulcast layer that covers it (reeltime's extension; a mix recorder on another node)",
        description:
          'Only for a viewer that pinned no layer, of a simulcast publisher; otherwise nothing moves. The session URL (Location of the WHEP answer) is the credential, as for PATCH and DELETE.',
        security: [{}],
        parameters: [param('id', 'path', 'Session id (the WHEP answer’s Location).')],
        requestBody: jsonBody({
          type: 'object',
          required: ['width', 'height'],
          properties: { width: { type: 'integer', minimum: 1, maximum: 8192 }, height: { type: 'integer', minimum: 1, maximum: 8192 } },
        }),
        responses: { '204': { description: 'Taken (the layer moved, or it already fits).' }, ...failed },
      },
    },
    '/rtc/v1/apps/{appId}/channels/{cname}/viewer-token': {
      post: {
        operationId: 'viewerToken',
        tags: ['Channels'],
        summary: "A subscriber-only RTC token for one channel and uid, for the customer's credentials (reeltime's extension; the console's live view)",
        description:
          'Join privilege only (no publish), valid 3600 s: a WHEP view opened with it ends when it expires (token_expired). token is null for an app without certificate (no token is checked there).',
        security: [{ basicAuth: [] }],
        parameters: ch,
        requestBody: jsonBody({
          type: 'object',
          required: ['uid'],
          properties: { uid: { type: ['integer', 'string'], description: "The viewer's user ID, 1..4294967295 (one no publisher of the channel uses)." } },
        }),
        responses: { '200': tokenAnswer({ type: ['string', 'null'], description: 'AccessToken2 RTC token with the join privilege only.' }), ...failed },
      },
    },
    '/rtc/v1/dev/token': {
      post: {
        operationId: 'devRtcToken',
        tags: ['Channels'],
        summary: 'Development only: an RTC token for the primary app (stands in for a business server; the call page uses it)',
        description:
          'Served when channel.devTokenEndpoint (REELTIME_CHANNEL_DEV_TOKEN_ENDPOINT) is on, by default only when REELTIME_ENV is development; otherwise 404 not_enabled. Unauthenticated: never turn it on where others can reach the server.',
        security: [{}],
        requestBody: jsonBody({
          type: 'object',
          required: ['cname', 'uid'],
          properties: {
            cname: { type: 'string', description: 'Channel name.' },
            uid: { type: ['integer', 'string'], description: 'User ID, 1..4294967295.' },
            role: { type: 'string', enum: ['publisher', 'subscriber'], description: 'Default publisher.' },
          },
        }),
        responses: { '200': tokenAnswer({ type: 'string', description: 'AccessToken2 RTC token.' }), ...failed },
      },
    },
  };
}

const preflight = 'CORS preflight for browser WHIP/WHEP clients (no body, 204)';

/** The channel API's paths, and the routes left out of the document. */
export function channelOpenApi(): OpenApiContribution {
  return {
    tags: ['Channels'],
    paths: channelPaths(),
    undocumented: [
      { method: 'OPTIONS', url: '/rtc/v1/apps/:appId/channels/:cname/whip', reason: preflight },
      { method: 'OPTIONS', url: '/rtc/v1/apps/:appId/channels/:cname/whep', reason: preflight },
      { method: 'OPTIONS', url: '/rtc/v1/sessions/:id', reason: preflight },
      { method: 'GET', url: '/rtc', reason: 'the call page (HTML): a redirect to /rtc/' },
      { method: 'GET', url: '/rtc/', reason: 'the call page (HTML, static)' },
      { method: 'GET', url: '/rtc/call.js', reason: "the call page's script (static)" },
    ],
  };
}
