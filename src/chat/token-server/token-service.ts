import { buildAppToken, buildUserToken } from '@reeltime/token';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import { AppTokenCache } from './app-token-cache.ts';
import { ChatRestClient, restBase, type RestOutcome } from './chat-rest-client.ts';
import type { TokenServerSettings } from './settings.ts';

/** A plain-text answer of the token server. */
export interface TokenReply {
  readonly status: number;
  readonly body: string;
}

/** The spec's exact messages, in its validation order. */
export const TOKEN_SERVER_MESSAGES = Object.freeze({
  credentials: 'appid or appcert is not empty',
  appKeyOrDomain: 'appkey or domain is not empty',
  appKeyIllegal: 'appkey is illegal',
  userName: 'chatUserName is not empty',
});

/** Fixed placeholder password the sample token server registers users with (docs/chat.md, "Token server"). */
export const PLACEHOLDER_PASSWORD = '123';
const NAME_MAX = 64;

const misconfigured = (body: string): TokenReply => ({ status: 503, body });

/** Splits `org#app`; undefined unless there are exactly two non-empty parts. */
export function splitAppKey(appKey: string): { org: string; app: string } | undefined {
  const parts = appKey.split('#');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { org: parts[0], app: parts[1] };
}

/**
 * The token server's logic, independent of HTTP: app tokens, and user tokens for a chat user name
 * (look up, register when missing, build a token for the user's UUID).
 */
export class ChatTokenService {
  readonly #cache: AppTokenCache;

  constructor(
    private readonly settings: TokenServerSettings,
    /** The chat REST domain, resolved late (the embedded server learns its own URL at start). */
    private readonly domain: () => string,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.#cache = new AppTokenCache(settings.appId, settings.appCertificate, settings.expireSecond, clock);
  }

  get appTokenBuilds(): number {
    return this.#cache.builds;
  }

  /** GET /chat/app/token: a fresh app token each call (the cache is for the server's own REST calls). */
  appToken(): TokenReply {
    const { appId, appCertificate, expireSecond } = this.settings;
    if (!appId || !appCertificate) return misconfigured(TOKEN_SERVER_MESSAGES.credentials);
    const token = buildAppToken(appId, appCertificate, expireSecond, { issueTs: this.#issueTs() });
    return token ? { status: 200, body: token } : { status: 500, body: 'token build failed' };
  }

  /** GET /chat/user/{chatUserName}/token. */
  async userToken(chatUserName: string): Promise<TokenReply> {
    const { appId, appCertificate, appKey, expireSecond } = this.settings;
    if (!appId || !appCertificate) return misconfigured(TOKEN_SERVER_MESSAGES.credentials);
    const domain = this.domain();
    if (!appKey || !domain) return misconfigured(TOKEN_SERVER_MESSAGES.appKeyOrDomain);
    const key = splitAppKey(appKey);
    if (!key) return misconfigured(TOKEN_SERVER_MESSAGES.appKeyIllegal);
    const name = chatUserName.trim();
    if (name === '') return { status: 400, body: TOKEN_SERVER_MESSAGES.userName };
    if (name.length > NAME_MAX) return { status: 400, body: 'chatUserName is illegal: USERNAME_TOO_LONG' };

    const client = new ChatRestClient(restBase(domain, key.org, key.app));
    const found = await this.#uuidOf(client, name);
    if (found.kind !== 'ok') return this.#failure(found);
    const token = buildUserToken(appId, appCertificate, found.uuid, expireSecond, { issueTs: this.#issueTs() });
    return token ? { status: 200, body: token } : { status: 500, body: 'token build failed' };
  }

  #issueTs(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  async #uuidOf(client: ChatRestClient, name: string): Promise<RestOutcome> {
    let r = await this.#withAppToken((t) => client.getUser(name, t));
    if (r.kind === 'http' && r.status === 404) {
      r = await this.#withAppToken((t) => client.registerUser(name, PLACEHOLDER_PASSWORD, t));
      // Someone registered the same name in between: it exists now, so look it up.
      if (r.kind === 'http' && r.error === 'duplicate_unique_property_exists') {
        r = await this.#withAppToken((t) => client.getUser(name, t));
      }
    }
    return r;
  }

  /** One retry with a fresh app token when the chat service refuses the cached one. */
  async #withAppToken(fn: (token: string) => Promise<RestOutcome>): Promise<RestOutcome> {
    const r = await fn(this.#cache.get());
    if (r.kind === 'http' && r.status === 401) {
      this.#cache.invalidate();
      return fn(this.#cache.get());
    }
    return r;
  }

  #failure(r: Exclude<RestOutcome, { kind: 'ok' }>): TokenReply {
    if (r.kind === 'unreachable') {
      this.log.warn({ cause: r.message }, 'chat REST service unreachable');
      if (r.message === 'TimeoutError') return { status: 504, body: 'chat service did not answer in time' };
      return { status: 502, body: 'chat service is unreachable' };
    }
    if (r.status === 400) return { status: 400, body: `chatUserName is illegal: ${r.description}` };
    this.log.warn({ status: r.status, error: r.error }, 'chat REST service refused a call');
    if (r.status === 401) return { status: 502, body: `chat service refused the app token: ${r.description}` };
    return { status: 502, body: `chat service error ${r.status}: ${r.description}` };
  }
}
