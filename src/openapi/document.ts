/**
 * The OpenAPI 3.1 document of reeltime's public HTTP routes, built from the same schemas the routes use: request
 * bodies from the recording tables (requestBodyJsonSchema), response and error bodies from recording/api/schemas.ts.
 * Routes whose bodies are not JSON (WHIP/WHEP SDP, plain-text chat tokens, bucket objects) are described by media
 * type. docs/client.md says what is covered.
 */
import type { TSchema } from '@sinclair/typebox';
import { ERRORS } from '../recording/errors.ts';
import { RESPONSE_BODIES } from '../recording/api/schemas.ts';
import { REQUEST_BODY_NAMES, requestBodyJsonSchema, type JsonSchema, type RequestBodyName } from '../recording/validation/index.ts';

export const OPENAPI_VERSION = '3.1.1';

type Json = JsonSchema;

/** A TypeBox schema as plain JSON Schema data (symbols and attached rules left out). */
export const plain = (s: TSchema): Json => JSON.parse(JSON.stringify(s)) as Json;

const REQUEST_SCHEMA_NAMES: Readonly<Record<RequestBodyName, string>> = {
  acquire: 'AcquireRequest',
  start: 'StartRequest',
  update: 'UpdateRequest',
  updateLayout: 'UpdateLayoutRequest',
  stop: 'StopRequest',
};

/** Every named schema of the document: request bodies, then response and error bodies. */
export function namedSchemas(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const name of REQUEST_BODY_NAMES) out[REQUEST_SCHEMA_NAMES[name]] = requestBodyJsonSchema(name);
  for (const [name, schema] of Object.entries(RESPONSE_BODIES)) out[name] = plain(schema);
  return out;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string): Json => ({ description, content: { 'application/json': { schema } } });
const text = (mediaType: string, description: string): Json => ({ description, content: { [mediaType]: { schema: { type: 'string' } } } });

/** The statuses each recording operation can answer with an error body, from the one catalogue (docs/errors.md). */
function errorResponses(): Record<string, Json> {
  const byStatus = new Map<number, { gateway: string[]; service: string[] }>();
  for (const spec of Object.values(ERRORS)) {
    const e = byStatus.get(spec.http) ?? { gateway: [], service: [] };
    if (spec.kind === 'gateway') e.gateway.push(spec.message);
    else e.service.push(`${spec.code} ${spec.reason ?? '(names the field and rule)'}`);
    byStatus.set(spec.http, e);
  }
  const out: Record<string, Json> = {};
  for (const [status, e] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schemas = [...(e.gateway.length ? [ref('GatewayErrorBody')] : []), ...(e.service.length ? [ref('ServiceErrorBody')] : [])];
    const lines = [...e.gateway.map((m) => `message "${m}"`), ...e.service.map((c) => `code ${c}`)];
    out[String(status)] = json(schemas.length === 1 ? schemas[0]! : { anyOf: schemas }, lines.join('; '));
  }
  return out;
}

const param = (name: string, where: 'path' | 'query', description: string, required = where === 'path'): Json => ({
  name,
  in: where,
  required,
  description,
  schema: { type: 'string' },
});

const appid = param('appid', 'path', 'App ID.');
const resourceid = param('resourceid', 'path', 'Resource ID from acquire.');
const sid = param('sid', 'path', 'Session ID from start.');
const mode = { ...param('mode', 'path', 'Recording mode.'), schema: { type: 'string', enum: ['individual', 'mix', 'web'] } };

function recordingOperation(opts: {
  id: string;
  summary: string;
  parameters: Json[];
  request?: string;
  ok: Json;
}): Json {
  const errors = errorResponses();
  return {
    operationId: opts.id,
    tags: ['Cloud recording'],
    summary: opts.summary,
    security: [{ basicAuth: [] }],
    parameters: opts.parameters,
    ...(opts.request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(opts.request) } } } } : {}),
    responses: { '200': opts.ok, ...errors },
  };
}

function recordingPaths(): Record<string, Json> {
  const base = '/v1/apps/{appid}/cloud_recording';
  const session = `${base}/resourceid/{resourceid}/sid/{sid}/mode/{mode}`;
  const sessionParams = [appid, resourceid, sid, mode];
  const queryOk = json(
    { anyOf: [ref('QueryIndividualResponse'), ref('QueryMixResponse'), ref('QueryWebResponse')] },
    'The session: files (individual, mix), a playlist (mix with HLS only), or services (web).',
  );
  return {
    '/v1/ncs/ip': {
      get: {
        operationId: 'getNcsIp',
        tags: ['Cloud recording'],
        summary: 'Addresses webhook (notification) requests come from',
        security: [{ basicAuth: [] }],
        responses: { '200': json(ref('NcsIpResponse'), 'The sending hosts.'), ...errorResponses() },
      },
    },
    [`${base}/acquire`]: {
      post: recordingOperation({
        id: 'acquire',
        summary: 'Reserve a resource ID for a recording',
        parameters: [appid],
        request: 'AcquireRequest',
        ok: json(ref('AcquireResponse'), 'The resource ID, valid 5 minutes.'),
      }),
    },
    [`${base}/resourceid/{resourceid}/mode/{mode}/start`]: {
      post: recordingOperation({
        id: 'start',
        summary: 'Start recording a channel',
        parameters: [appid, resourceid, mode],
        request: 'StartRequest',
        ok: json(ref('SessionResponse'), 'The session ID.'),
      }),
    },
    [`${session}/query`]: {
      get: recordingOperation({ id: 'query', summary: 'Status and files of a live session', parameters: sessionParams, ok: queryOk }),
    },
    [`${session}/update`]: {
      post: recordingOperation({
        id: 'update',
        summary: 'Change subscriptions, onhold (web; individual and mix: recordingConfig.onhold) or RTMP outputs',
        parameters: sessionParams,
        request: 'UpdateRequest',
        ok: json(ref('SessionResponse'), 'Accepted.'),
      }),
    },
    [`${session}/updateLayout`]: {
      post: recordingOperation({
        id: 'updateLayout',
        summary: 'Change the mix layout',
        parameters: sessionParams,
        request: 'UpdateLayoutRequest',
        ok: json(ref('SessionResponse'), 'Accepted.'),
      }),
    },
    [`${base}/sessions`]: {
      get: {
        ...recordingOperation({
          id: 'listSessions',
          summary: "Every session, live or ended, newest first (reeltime's extension)",
          parameters: [
            appid,
            param('cname', 'query', 'Only this channel.', false),
            { ...param('status', 'query', 'Only sessions in this state.', false), schema: { type: 'string', enum: ['live', 'stopping', 'ended'] } },
            { ...param('mode', 'query', 'Only this mode.', false), schema: { type: 'string', enum: ['individual', 'mix', 'web'] } },
            { ...param('from', 'query', 'Started at or after: Unix ms or an ISO 8601 date/time.', false), schema: { type: 'string' } },
            { ...param('to', 'query', 'Started before: Unix ms or an ISO 8601 date/time.', false), schema: { type: 'string' } },
            param('cursor', 'query', 'nextCursor of the previous page.', false),
            { ...param('limit', 'query', 'Page size, 1..100 (default 20).', false), schema: { type: 'integer', minimum: 1, maximum: 100 } },
          ],
          ok: json(ref('SessionListResponse'), 'One page of sessions.'),
        }),
        tags: ['Sessions (reeltime)'],
      },
    },
    [`${base}/sessions/{sid}`]: {
      get: {
        ...recordingOperation({
          id: 'getSession',
          summary: "One session with its request (secrets redacted), status history, files, events and webhook deliveries (reeltime's extension)",
          parameters: [appid, sid],
          ok: json(ref('SessionDetailResponse'), 'The session, also after query stopped answering.'),
        }),
        tags: ['Sessions (reeltime)'],
      },
    },
    [`${session}/stop`]: {
      post: recordingOperation({
        id: 'stop',
        summary: 'Stop recording; the answer lists the files',
        parameters: sessionParams,
        request: 'StopRequest',
        ok: json(ref('StopResponse'), 'Stopped (206 with code 50 or 435: upload timed out, or nothing was recorded).'),
      }),
    },
  };
}

const channelError: Json = {
  type: 'object',
  required: ['error', 'reason'],
  properties: { error: { type: 'string', description: 'Stable error code (docs/channel.md).' }, reason: { type: 'string' } },
};

function channelPaths(): Record<string, Json> {
  const ch = [param('appId', 'path', 'App ID.'), param('cname', 'path', 'Channel name.')];
  const sdpOffer = { required: true, content: { 'application/sdp': { schema: { type: 'string' } } } };
  const created = {
    ...text('application/sdp', 'The SDP answer; Location names the session (PATCH for trickle ICE, DELETE to leave).'),
    headers: { Location: { schema: { type: 'string' } }, ETag: { schema: { type: 'string' } } },
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
    ]),
    '/rtc/v1/sessions/{id}': {
      parameters: [param('id', 'path', 'Session from the Location header.')],
      patch: {
        operationId: 'trickleIce',
        tags: ['Channels'],
        summary: 'Send ICE candidates (trickle ICE)',
        requestBody: { required: true, content: { 'application/trickle-ice-sdpfrag': { schema: { type: 'string' } } } },
        responses: { '204': { description: 'Applied.' }, ...failed },
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
  };
}

function chatPaths(): Record<string, Json> {
  const org = [param('org', 'path', 'Org name.'), param('app', 'path', 'App name.')];
  const chatError = json({ type: 'object', properties: { error: { type: 'string' }, error_description: { type: 'string' } } }, 'Refused.');
  const users = json({ type: 'object', description: 'The users envelope (action, entities, timestamp…), docs/chat.md.' }, 'Done.');
  return {
    '/chat/app/token': {
      get: {
        operationId: 'chatAppToken',
        tags: ['Chat'],
        summary: 'An app token (token server); production: app backends only (customer Basic credentials), docs/chat.md',
        security: [{}, { basicAuth: [] }],
        responses: { '200': text('text/plain', 'The token.'), '4XX': text('text/plain', 'Refused (401 no or bad credential, 403 an end-client assertion).') },
      },
    },
    '/chat/user/{chatUserName}/token': {
      get: {
        operationId: 'chatUserToken',
        tags: ['Chat'],
        summary: 'A user token, registering the user when new (token server); production: customer Basic credentials, or an end-client assertion for this user',
        security: [{}, { basicAuth: [] }, { chatUserAssertion: [] }],
        parameters: [param('chatUserName', 'path', 'Chat user name.')],
        responses: { '200': text('text/plain', 'The token.'), '4XX': text('text/plain', 'Refused.') },
      },
    },
    '/{org}/{app}/users': {
      post: {
        operationId: 'registerChatUsers',
        tags: ['Chat'],
        summary: 'Register one user or a batch',
        security: [{ bearerAuth: [] }],
        parameters: org,
        requestBody: { required: true, content: { 'application/json': { schema: { type: ['object', 'array'] } } } },
        responses: { '200': users, '4XX': chatError },
      },
    },
    '/{org}/{app}/users/{username}': {
      get: {
        operationId: 'getChatUser',
        tags: ['Chat'],
        summary: 'One user',
        security: [{ bearerAuth: [] }],
        parameters: [...org, param('username', 'path', 'User name.')],
        responses: { '200': users, '4XX': chatError },
      },
    },
  };
}

function bucketPaths(): Record<string, Json> {
  const parameters = [
    param('bucket', 'path', 'Bucket name.'),
    param('key', 'path', 'Object key (may contain slashes).'),
    param('expires', 'query', 'Production: expiry of a signed link (Unix seconds), as the sessions API hands it out.'),
    param('signature', 'query', 'Production: the signed link\'s HMAC (base64url).'),
    { name: 'Range', in: 'header', required: false, description: 'A single byte range (`bytes=0-99`).', schema: { type: 'string' } },
  ];
  const object = { description: 'The object (single byte ranges answer 206).', content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } };
  const refused = {
    description: 'Production: no signed link or customer credentials (`signature_missing`), a wrong one (`signature_invalid`), or a late one (`signature_expired`).',
    content: { 'application/json': { schema: { type: 'object', required: ['error', 'message'], properties: { error: { type: 'string' }, message: { type: 'string' } } } } },
  };
  const op = (id: string): Json => ({
    operationId: id,
    tags: ['Local bucket'],
    summary: 'A recorded file from the local bucket',
    description:
      'Development: anyone with the URL. Production: a signed, expiring link from the sessions API, or the customer\'s credentials (docs/storage.md, "Who may read recordings").',
    // Either nothing (development, or a signed link in the query) or the customer's Basic credentials.
    security: [{}, { basicAuth: [] }],
    parameters,
    responses: { '200': object, '206': object, '403': refused, '404': { description: 'No such object.' }, '416': { description: 'Range not satisfiable.' } },
  });
  return { '/bucket/{bucket}/{key}': { get: op('getObject'), head: op('headObject') } };
}

function operationsPaths(): Record<string, Json> {
  const str = { type: 'string' };
  const roles = { type: 'array', items: str, description: 'The roles this process runs.' };
  const checks = { type: 'object', additionalProperties: { type: 'object' }, description: 'Each dependency check and its outcome.' };
  const json = (schema: Json) => ({ 'application/json': { schema } });
  return {
    '/healthz': {
      get: {
        operationId: 'healthz',
        tags: ['Operations'],
        summary: 'Alive: the process serves HTTP (every role)',
        security: [{}],
        responses: { '200': { description: 'Alive.', content: json({ type: 'object', required: ['status', 'roles'], properties: { status: { const: 'ok' }, roles } }) } },
      },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        tags: ['Operations'],
        summary: 'Ready: every dependency answers (every role); 503 names the failing ones',
        security: [{}],
        responses: {
          '200': { description: 'Ready.', content: json({ type: 'object', required: ['status', 'roles', 'checks'], properties: { status: { const: 'ready' }, roles, checks } }) },
          '503': {
            description: 'A dependency does not answer.',
            content: json({ type: 'object', required: ['status', 'roles', 'failing', 'checks'], properties: { status: { const: 'unavailable' }, roles, failing: { type: 'array', items: str }, checks } }),
          },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['Operations'],
        summary: 'Prometheus metrics (docs/metrics.md)',
        description: 'Callers on this host only, unless REELTIME_METRICS_TOKEN is set: then any address with that bearer token.',
        security: [{}, { metricsToken: [] }],
        responses: {
          '200': { description: 'The Prometheus text format.', content: { 'text/plain': { schema: str } } },
          '401': { description: 'A token is configured and none was sent.' },
          '403': { description: 'A wrong token, or a caller beyond this host without a configured token.' },
        },
      },
    },
  };
}

export interface DocumentOptions {
  /** Base URL printed under `servers` (the one this server answers at). */
  readonly serverUrl?: string;
  readonly version?: string;
}

/** The whole document (plain JSON data). */
export function buildOpenApiDocument(opts: DocumentOptions = {}): Json {
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'reeltime',
      version: opts.version ?? '0.1.0',
      description:
        'Cloud recording REST service (the hosted service\'s paths and bodies), real-time channels (WHIP/WHEP), chat token server and users API, and the local bucket. See docs/recording-api.md and docs/errors.md.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl }] } : {}),
    tags: [{ name: 'Cloud recording' }, { name: 'Sessions (reeltime)' }, { name: 'Channels' }, { name: 'Chat' }, { name: 'Local bucket' }, { name: 'Operations' }],
    paths: { ...recordingPaths(), ...channelPaths(), ...chatPaths(), ...bucketPaths(), ...operationsPaths() },
    components: {
      schemas: namedSchemas(),
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'Customer ID and customer secret (recording API, channel reads).' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'AccessToken2', description: 'An RTC or chat token (docs/token.md).' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The configured metrics token (REELTIME_METRICS_TOKEN), for /metrics only.' },
        chatUserAssertion: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An HS256 JWT {sub: user name, exp} from the app\'s login, signed with chat.assertionSecret (docs/chat.md).' },
      },
    },
  };
}
