import type { CoreConfig, ConfigSource } from '../config/index.ts';
import { checkTokenAuth, parseTokenAuth, type TokenAuthSettings } from './token-server/caller-auth.ts';
import {
  envNameOf,
  parseTokenServerSettings,
  type PropertyReader,
  type TokenServerSettings,
} from './token-server/settings.ts';

/** Settings of the chat module (file section "chat", environment overrides REELTIME_CHAT_*). */
export interface ChatConfig {
  /** The token server's settings, spec names under "chat" (`chat.appid`, `chat.expire.second`, ...). */
  readonly tokenServer: TokenServerSettings;
  /** `org#app` the users API and gateway serve, signed with the core app (`chat.appkey`). */
  readonly appKey: string;
  /** Users API requests per second per app key (`chat.restRateLimit`); 0 turns limiting off. */
  readonly restRateLimit: number;
  /** Who may ask the token server for tokens (`chat.tokenAuth`, `chat.assertionSecret`; docs/chat.md). */
  readonly tokenAuth: TokenAuthSettings;
}

export const DEFAULT_APP_KEY = 'reeltime#default';

/**
 * Reads a spec property from the "chat" section, either nested (`{"expire": {"second": 6000}}`) or with the
 * dotted name as one key (`{"expire.second": 6000}`).
 */
function jsonReader(src: ConfigSource): PropertyReader {
  return {
    get(p) {
      const e = src.env[envNameOf(p)];
      if (e !== undefined && e !== '') return e;
      const section = src.raw('chat');
      const flat = section && typeof section === 'object' && !Array.isArray(section) ? section[p] : undefined;
      const v = flat ?? src.raw(`chat.${p}`);
      if (v === undefined || v === null || typeof v === 'object') return undefined;
      return String(v);
    },
    label: (p) => `${envNameOf(p)} (chat.${p})`,
  };
}

export function parseChatConfig(src: ConfigSource, core: CoreConfig): ChatConfig {
  const tokenServer = parseTokenServerSettings(jsonReader(src), {
    appId: core.appId,
    appCertificate: core.appCertificate,
    appKey: DEFAULT_APP_KEY,
  });
  return {
    tokenServer,
    appKey: tokenServer.appKey,
    restRateLimit: src.int('chat.restRateLimit', 'REELTIME_CHAT_REST_RATE_LIMIT', 100, { min: 0 }),
    tokenAuth: parseTokenAuth(src, core.env),
  };
}

/** The Basic credentials that may ask for the chat app's tokens: the customers allowed to use its app ID. */
export function chatTokenCustomers<C extends { readonly appIds: readonly string[] }>(
  chat: ChatConfig,
  core: Pick<CoreConfig, 'appId'>,
  customers: readonly C[],
): C[] {
  const appId = chat.tokenServer.appId || core.appId;
  return customers.filter((c) => c.appIds.includes(appId));
}

/** Refuses, at start-up, a token server nobody could authenticate to (see `checkTokenAuth`). */
export function checkChatConfig<C extends { readonly appIds: readonly string[] }>(
  chat: ChatConfig,
  core: Pick<CoreConfig, 'appId'>,
  customers: readonly C[],
): void {
  checkTokenAuth(chat.tokenAuth, chatTokenCustomers(chat, core, customers).length, chat.tokenServer.appId || core.appId);
}
