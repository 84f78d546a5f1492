/**
 * The recording API's part of the OpenAPI document, built from the schemas its routes use: request bodies from the
 * recording tables (requestBodyJsonSchema), response and error bodies from schemas.ts, error statuses from the one
 * catalogue (docs/errors.md). Beside plugin.ts and sessions-routes.ts, which register these paths.
 */
import type { TSchema } from '@sinclair/typebox';
import { jsonResponse as json, openApiParam as param, schemaRef as ref, type OpenApiContribution, type OpenApiObject as Json } from '../../http/index.ts';
import { ERRORS } from '../errors.ts';
import { REQUEST_BODY_NAMES, requestBodyJsonSchema, type RequestBodyName } from '../validation/index.ts';
import { RESPONSE_BODIES } from './schemas.ts';

/** A TypeBox schema as plain JSON Schema data (symbols and attached rules left out). */
export const plain = (s: TSchema): Json => JSON.parse(JSON.stringify(s)) as Json;

const REQUEST_SCHEMA_NAMES: Readonly<Record<RequestBodyName, string>> = {
  acquire: 'AcquireRequest',
  start: 'StartRequest',
  update: 'UpdateRequest',
  updateLayout: 'UpdateLayoutRequest',
  stop: 'StopRequest',
};

/** Every named schema of the recording API: request bodies, then response and error bodies. */
export function namedSchemas(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const name of REQUEST_BODY_NAMES) out[REQUEST_SCHEMA_NAMES[name]] = requestBodyJsonSchema(name);
  for (const [name, schema] of Object.entries(RESPONSE_BODIES)) out[name] = plain(schema);
  return out;
}

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

/** The recording API's paths, request/response/error schemas and tags. */
export function recordingOpenApi(): OpenApiContribution {
  return { tags: ['Cloud recording', 'Sessions (reeltime)'], paths: recordingPaths(), schemas: namedSchemas() };
}
