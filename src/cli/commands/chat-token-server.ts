// `reeltime chat-token-server`: the chat token server alone, from the reeltime config or a `.properties` file.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseProperties, parseTokenServerSettings, propertiesReader, startTokenServer, type TokenServerSettings } from '../../chat/index.ts';
import { ConfigError, environmentSource, parseLogLevel } from '../../config/index.ts';
import { createLogger } from '../../log/index.ts';
import { loadConfig } from '../../server/config.ts';
import { UsageError, type CommandRunner } from '../command.ts';

const HELP = `usage: reeltime chat-token-server [--config file.properties]

Runs the chat token server alone on server.port: GET /chat/app/token and GET /chat/user/{chatUserName}/token.
Properties: server.port, server.address, appid, appcert, expire.second, appkey, domain
(environment overrides: REELTIME_CHAT_SERVER_PORT, REELTIME_CHAT_APPID, REELTIME_CHAT_EXPIRE_SECOND, ...).
Without --config the "chat" section of the reeltime JSON config is used (domain defaults to its publicUrl).
`;

/** The token server's settings and log level, from the reeltime config or from a properties file. */
function settingsFrom(file: string | undefined): { settings: TokenServerSettings; logLevel: string } {
  if (file === undefined) {
    // Same config as a reeltime server: by default talk to that server's users API.
    const config = loadConfig();
    const s = config.chat.tokenServer;
    return { settings: s.domain === undefined ? { ...s, domain: config.publicUrl } : s, logLevel: config.logLevel };
  }
  const path = resolve(file);
  if (!existsSync(path)) throw new ConfigError('--config', `file not found: ${path}`);
  const props = parseProperties(readFileSync(path, 'utf8'));
  const env = environmentSource();
  return { settings: parseTokenServerSettings(propertiesReader(props, env.env, file)), logLevel: parseLogLevel(env) };
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
    const { settings, logLevel } = settingsFrom(values.config);
    const log = createLogger(logLevel);
    const server = await startTokenServer(settings, { log });
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
