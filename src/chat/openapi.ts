/**
 * The chat module's part of the OpenAPI document: the token server's two GETs and the users REST API
 * (token-server/routes.ts and users/routes.ts register them). The gateway's WebSocket (/chat/ws) is an upgrade,
 * not an HTTP route, and is described in docs/chat.md.
 */
import { jsonResponse as json, openApiParam as param, textResponse as text, type OpenApiContribution, type OpenApiObject as Json } from '../http/index.ts';

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
    '/{org}/{app}/sdk/users/{username}/token/expires': {
      get: {
        operationId: 'chatUserTokenExpiry',
        tags: ['Chat'],
        summary: "When the user token sent expires (the Web SDK's renewToken), authenticated by that user's token",
        security: [{ bearerAuth: [] }],
        parameters: [...org, param('username', 'path', 'User name.')],
        responses: {
          '200': json(
            { type: 'object', required: ['expire_timestamp'], properties: { expire_timestamp: { type: 'integer', description: 'Unix ms.' } } },
            "The token's expiry.",
          ),
          '4XX': chatError,
        },
      },
    },
  };
}

export function chatOpenApi(): OpenApiContribution {
  const preflight = 'CORS preflight for browser SDKs asking the token server (no body, 204)';
  return {
    tags: ['Chat'],
    paths: chatPaths(),
    securitySchemes: {
      chatUserAssertion: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: "An HS256 JWT {sub: user name, exp} from the app's login, signed with chat.assertionSecret (docs/chat.md).",
      },
    },
    undocumented: [
      { method: 'OPTIONS', url: '/chat/app/token', reason: preflight },
      { method: 'OPTIONS', url: '/chat/user/*', reason: preflight },
    ],
  };
}
