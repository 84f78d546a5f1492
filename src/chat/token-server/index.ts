// The chat token server: app and user tokens, its settings (properties file or config) and the standalone server.
export {
  checkTokenAuth,
  createCallerAuth,
  OPEN_TOKEN_AUTH_WARNING,
  parseTokenAuth,
  signUserAssertion,
  verifyUserAssertion,
  type CallerAuth,
  type TokenAuthSettings,
} from './caller-auth.ts';
export { parseProperties } from './properties.ts';
export { registerTokenRoutes } from './routes.ts';
export { parseTokenServerSettings, propertiesReader, type TokenServerSettings } from './settings.ts';
export { startTokenServer, type StandaloneTokenServer } from './standalone.ts';
export { ChatTokenService, PLACEHOLDER_PASSWORD, splitAppKey, TOKEN_SERVER_MESSAGES } from './token-service.ts';
