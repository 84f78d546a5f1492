// `reeltime chat-token-server`: the chat token server alone, from the reeltime config or a `.properties` file.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  chatTokenCustomers,
  checkTokenAuth,
  OPEN_TOKEN_AUTH_WARNING,
  parseProperties,
  parseTokenAuth,
  parseTokenServerSettings,
  propertiesReader,
  startTokenServer,
  type TokenAuthSettings,
  type TokenServerSettings,
} from '../../chat/index.ts';
import { ConfigError, environmentSource, parseLogLevel } from '../../config/index.ts';
import { createLogger } from '../../log/index.ts';
import { loadConfig } from '../../server/config.ts';
import { UsageError, type CommandRunner } from '../command.ts';

const HELP = `usage: reeltime chat-token-server [--config file.properties]

Runs the chat token server alone on server.port: GET /chat/app/token and GET /chat/user/{chatUserName}/token.
Properties: server.port, server.address, appid, appcert, expire.second, appkey, domain
(environment overrides: REELTIME_CHAT_SERVER_PORT, REELTIME_CHAT_APPID, REELTIME_CHAT_EXPIRE_SECOND, ...).
Without --config the "chat" section of the reeltime JSON config is used (domain defaults to its publicUrl).
Callers: chat.tokenAuth (REELTIME_CHAT_TOKEN_AUTH) "open" (the development default) or "required" (the production
default: the customer's Basic credentials, or a Bearer assertion signed with REELTIME_CHAT_ASSERTION_SECRET);
with --config, REELTIME_ENV, REELTIME_CHAT_TOKEN_AUTH and REELTIME_CHAT_ASSERTION_SECRET come from the environment.
`;

interface StandaloneSetup {
  readonly settings: TokenServerSettings;
  readonly logLevel: string;
  readonly env: 'development' | 'production';
  readonly auth: TokenAuthSettings;
  readonly customers: readonly { readonly id: string; readonly secret: string }[];
}

/** The token server's settings, log level and callers, from the reeltime config or from a properties file. */
function settingsFrom(file: string | undefined): StandaloneSetup {
  if (file === undefined) {
    // Same config as a reeltime server: by default talk to that server's users API (loadConfig checks the callers).
    const config = loadConfig();
    const s = config.chat.tokenServer;
    return {
      settings: s.domain === undefined ? { ...s, domain: config.publicUrl } : s,
      logLevel: config.logLevel,
      env: config.env,
      auth: config.chat.tokenAuth,
      customers: chatTokenCustomers(config.chat, config, config.recording.customers),
    };
  }
  const path = resolve(file);
  if (!existsSync(path)) throw new ConfigError('--config', `file not found: ${path}`);
  const props = parseProperties(readFileSync(path, 'utf8'));
  const env = environmentSource();
  const envName = env.string('env', 'REELTIME_ENV', 'development');
  if (envName !== 'development' && envName !== 'production') {
    throw new ConfigError('REELTIME_ENV (env)', `must be "development" or "production", got "${envName}"`);
  }
  const settings = parseTokenServerSettings(propertiesReader(props, env.env, file));
  // A properties file names no customers: in production only end-client assertions can authenticate.
  const auth = parseTokenAuth(env, envName);
  checkTokenAuth(auth, 0, settings.appId);
  return { settings, logLevel: parseLogLevel(env), env: envName, auth, customers: [] };
}

export const chatTokenServer: CommandRunner = {
  async run(args) {
    let values: { config?: string | undefined; help?: boolean | undefined };
    try {
      ({ values } = parseArgs({
        args: [...args],
        options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
        strict: true,
        allowPositionals: false,
      }));
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\n\n${HELP}`);
    }
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    const { settings, logLevel, env, auth, customers } = settingsFrom(values.config);
    const log = createLogger(logLevel);
    if (auth.mode === 'open' && env === 'production') log.warn({ tokenAuth: 'open' }, OPEN_TOKEN_AUTH_WARNING);
    const server = await startTokenServer(settings, { log, auth, customers });
    process.stdout.write(
      `chat token server at ${server.url}\n  ${server.url}/chat/app/token\n  ${server.url}/chat/user/{chatUserName}/token\n` +
        `  chat REST domain: ${settings.domain || '(not set)'}   appkey: ${settings.appKey || '(not set)'}\n`,
    );
    await new Promise<void>((done) => {
      process.once('SIGINT', () => done());
      process.once('SIGTERM', () => done());
    });
    await server.close();
    return 0;
  },
};
