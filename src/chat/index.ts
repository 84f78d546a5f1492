// The chat module as the server and the CLI see it. The client SDK is its own entry: src/chat/sdk/index.ts.
export { createChatModule, type ChatModule } from './module.ts';
export type { ChatConfig } from './config.ts';
export { chatTokenCustomers, DEFAULT_APP_KEY } from './config.ts';
export {
  ChatTokenService,
  checkTokenAuth,
  OPEN_TOKEN_AUTH_WARNING,
  parseProperties,
  parseTokenAuth,
  signUserAssertion,
  parseTokenServerSettings,
  PLACEHOLDER_PASSWORD,
  propertiesReader,
  splitAppKey,
  startTokenServer,
  TOKEN_SERVER_MESSAGES,
  type StandaloneTokenServer,
  type TokenAuthSettings,
  type TokenServerSettings,
} from './token-server/index.ts';
export { GATEWAY_PATH } from './gateway/index.ts';
export type { ChatUser } from './users/index.ts';
