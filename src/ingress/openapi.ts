import { jsonResponse as json, openApiParam as param, schemaRef as ref, type OpenApiContribution, type OpenApiObject as Json } from '../http/index.ts';
import { INGRESS_ERRORS } from './errors.ts';
import { INGRESS_KINDS, RTSP_TRANSPORTS } from './types.ts';

const TAG = 'Ingress (reeltime extension)';

const INGRESS: Json = {
  type: 'object',
  required: ['ingressId', 'cname', 'uid', 'kind', 'state', 'createdMs', 'updatedMs'],
  properties: {
    ingressId: { type: 'string' },
    cname: { type: 'string' },
    uid: { type: 'string' },
    kind: { type: 'string', enum: [...INGRESS_KINDS] },
    url: { type: 'string', description: 'The source reeltime connects to, its password and SRT passphrase shown as ***.' },
    transport: { type: 'string', enum: [...RTSP_TRANSPORTS] },
    push: {
      type: 'object',
      description: "Push kinds: OBS's Server and Stream Key (SRT: the passphrase), and the URL an encoder takes. The key is a secret.",
      required: ['server', 'streamKey', 'url'],
      properties: { server: { type: 'string' }, streamKey: { type: 'string' }, url: { type: 'string' } },
    },
    state: { type: 'string', enum: ['waiting', 'publishing', 'failed'] },
    error: { type: 'string', description: 'Why the last publish failed (state failed).' },
    createdMs: { type: 'integer' },
    updatedMs: { type: 'integer' },
  },
};

/** The named schemas of the ingress API (in /openapi.json, and typed in @reeltime/client). */
export const INGRESS_SCHEMAS: Readonly<Record<string, Json>> = {
  IngressRequest: {
    type: 'object',
    required: ['cname', 'uid', 'kind'],
    additionalProperties: false,
    properties: {
      cname: { type: 'string', minLength: 1, maxLength: 64, description: 'The channel the source publishes into.' },
      uid: { anyOf: [{ type: 'string', pattern: '^[0-9]{1,10}$' }, { type: 'integer', minimum: 1, maximum: 4294967295 }], description: 'The participant the source appears as, 1..4294967295.' },
      kind: { type: 'string', enum: [...INGRESS_KINDS], description: 'rtmp and srt (pushed to reeltime), rtsp and whep (pulled by reeltime); srt with a url is pulled too (caller mode).' },
      url: {
        type: 'string',
        maxLength: 2048,
        description: 'The source reeltime connects to, checked by the outbound URL guard: rtsp://, rtsps:// (rtsp, required); http(s):// (whep, required); srt://host:port (srt in caller mode; absent: reeltime listens). Not for rtmp.',
      },
      transport: { type: 'string', enum: [...RTSP_TRANSPORTS], description: 'rtsp only: tcp (default) or udp.' },
      token: { type: 'string', minLength: 1, maxLength: 4096, description: 'whep only: the bearer token the source wants. A secret: stored, never answered.' },
    },
  },
  Ingress: INGRESS,
  IngressList: { type: 'object', required: ['ingresses'], properties: { ingresses: { type: 'array', items: INGRESS } } },
  IngressErrorBody: { type: 'object', required: ['code', 'reason'], properties: { code: { type: 'integer' }, reason: { type: 'string' } } },
};

/** Error statuses of the ingress API, from its catalogue, plus the shared gateway refusals (auth, app id). */
function errors(): Record<string, Json> {
  const out: Record<string, Json> = {
    '401': json(ref('GatewayErrorBody'), 'message "Unauthorized" or "Invalid authentication credentials" (as the recording API).'),
  };
  for (const spec of Object.values(INGRESS_ERRORS)) {
    const key = String(spec.http);
    const line = `code ${spec.code} ${spec.reason ?? '(names the field and rule)'}`;
    const prev = out[key] as { description?: string } | undefined;
    out[key] = json(ref('IngressErrorBody'), prev?.description && key !== '401' ? `${prev.description}; ${line}` : line);
  }
  return out;
}

const appid = param('appid', 'path', 'App ID.');
const ingressId = param('ingressId', 'path', 'Ingress ID from create.');
const op = (id: string, summary: string, parameters: Json[], ok: Record<string, Json>, request?: string): Json => ({
  operationId: id,
  tags: [TAG],
  summary,
  security: [{ basicAuth: [] }],
  parameters,
  ...(request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(request) } } } } : {}),
  responses: { ...ok, ...errors() },
});

/** The ingress API in /openapi.json. */
export function ingressOpenApi(): OpenApiContribution {
  return {
    tags: [TAG],
    schemas: INGRESS_SCHEMAS,
    paths: {
      '/v1/apps/{appid}/ingress': {
        post: op('createIngress', 'Create an ingress: a source that publishes into a channel as a uid', [appid], { '201': json(ref('Ingress'), 'Created; push kinds carry where to push.') }, 'IngressRequest'),
        get: op('listIngresses', "List the app's ingresses", [appid], { '200': json(ref('IngressList'), 'Oldest first.') }),
      },
      '/v1/apps/{appid}/ingress/{ingressId}': {
        get: op('getIngress', 'One ingress and its state', [appid, ingressId], { '200': json(ref('Ingress'), 'The ingress.') }),
        delete: op('deleteIngress', 'Delete an ingress; a publish of it ends', [appid, ingressId], { '204': { description: 'Deleted.' } }),
      },
    },
  };
}
