/** The recording rules API's part of the OpenAPI document (reeltime's extension), beside routes.ts. */
import { jsonResponse as json, openApiParam as param, type OpenApiContribution, type OpenApiObject as Json } from '../http/index.ts';

const TAG = 'Recording rules (reeltime extension)';

const RECORDING: Json = {
  type: 'object',
  properties: {
    cname: { type: 'string' },
    state: { type: 'string', enum: ['starting', 'recording', 'failed'] },
    resourceId: { type: ['string', 'null'] },
    sid: { type: ['string', 'null'] },
    uid: { type: ['string', 'null'] },
    updatedAt: { type: 'integer' },
    error: { type: 'string' },
  },
};

const RULE: Json = {
  type: 'object',
  required: ['ruleId', 'appId', 'cname', 'mode', 'scene', 'createdAt'],
  properties: {
    ruleId: { type: 'string' },
    appId: { type: 'string' },
    cname: { type: 'string', description: 'The channel-name pattern; * stands for any run of characters.' },
    mode: { type: 'string', enum: ['individual', 'mix', 'web'] },
    uid: { type: ['string', 'null'], description: 'The recording uid, or null for a random free one per recording.' },
    scene: { type: 'integer' },
    clientRequest: { type: 'object', description: "start's clientRequest, storage keys redacted." },
    createdAt: { type: 'integer' },
    recordings: { type: 'array', items: RECORDING, description: 'GET of one rule: the latest recording per channel.' },
  },
};

export function rulesOpenApi(): OpenApiContribution {
  const app = param('appid', 'path', 'App ID.');
  const failed = {
    '400': json({ $ref: '#/components/schemas/RuleErrorBody' }, 'code 2, the reason naming the field and its rule.'),
    '401': json({ $ref: '#/components/schemas/GatewayErrorBody' }, 'as the recording API.'),
  };
  return {
    tags: [TAG],
    schemas: {
      RecordingRuleRequest: {
        type: 'object',
        required: ['cname', 'mode'],
        additionalProperties: false,
        properties: {
          cname: { type: 'string', description: 'A channel name or a pattern with * (any run of characters).' },
          mode: { type: 'string', enum: ['individual', 'mix', 'web'] },
          uid: { type: 'string', description: 'The recording uid, 1..4294967295 as text; omit for a random free one per recording.' },
          scene: { type: 'integer', enum: [0, 1, 2], description: "acquire's clientRequest.scene (default 1 for web, else 0)." },
          clientRequest: { type: 'object', description: "start's clientRequest without token, validated as start validates it." },
        },
      },
      RecordingRule: RULE,
      RuleErrorBody: { type: 'object', required: ['code', 'reason'], properties: { code: { type: 'integer' }, reason: { type: 'string' } } },
    },
    paths: {
      '/v1/apps/{appid}/recording-rules': {
        post: {
          operationId: 'createRecordingRule',
          tags: [TAG],
          summary: 'Record each channel matching a pattern when it gets its first publisher',
          security: [{ basicAuth: [] }],
          parameters: [app],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/RecordingRuleRequest' } } } },
          responses: { '201': json({ $ref: '#/components/schemas/RecordingRule' }, 'The rule.'), ...failed },
        },
        get: {
          operationId: 'listRecordingRules',
          tags: [TAG],
          summary: "The app's recording rules",
          security: [{ basicAuth: [] }],
          parameters: [app],
          responses: { '200': json({ type: 'object', properties: { rules: { type: 'array', items: RULE } } }, '{rules}.'), ...failed },
        },
      },
      '/v1/apps/{appid}/recording-rules/{ruleId}': {
        parameters: [app, param('ruleId', 'path', 'Rule ID.')],
        get: {
          operationId: 'recordingRule',
          tags: [TAG],
          summary: 'One rule and its latest recording per channel',
          security: [{ basicAuth: [] }],
          responses: { '200': json({ $ref: '#/components/schemas/RecordingRule' }, 'The rule with recordings.'), '404': json({ $ref: '#/components/schemas/RuleErrorBody' }, 'No such rule.'), ...failed },
        },
        delete: {
          operationId: 'deleteRecordingRule',
          tags: [TAG],
          summary: 'Delete a rule (its running recordings go on until their channel empties)',
          security: [{ basicAuth: [] }],
          responses: { '204': { description: 'Deleted.' }, '404': json({ $ref: '#/components/schemas/RuleErrorBody' }, 'No such rule.'), ...failed },
        },
      },
    },
  };
}
