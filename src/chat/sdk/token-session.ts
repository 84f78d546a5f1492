import type { TextMessage } from '../gateway/protocol.ts';
import { ChatConnection, type ChatListeners, type LoginInfo } from './connection.ts';
import { ChatError, globalTimers, type Timers, type WebSocketConstructor } from './websocket.ts';

export const HOURLY_MS = 60 * 60 * 1000;
/** The gateway's close code for a refused login (see the gateway protocol). */
const LOGIN_FAILED = 4001;

export interface ChatTokenSessionOptions<H = unknown> {
  /** Base URL of the token server (it serves /chat/user/{name}/token). */
  readonly tokenServerUrl: string;
  /** ws://host:port/chat/ws */
  readonly gatewayUrl: string;
  readonly user: string;
  readonly WebSocket?: WebSocketConstructor;
  readonly fetch?: typeof fetch;
  /**
   * The `Authorization` header of each token request, asked for anew each time: where the token server requires
   * callers (production), `Bearer <assertion>` from the app's own login (docs/chat.md). Undefined sends none.
   */
  readonly authorization?: () => string | undefined | Promise<string | undefined>;
  /** Timers of the regular renewal; defaults to the global ones. */
  readonly timers?: Timers<H>;
  /** How often a fresh token is fetched and passed to renewToken (default hourly). */
  readonly renewEveryMs?: number;
  /** Wait before another login attempt when logging in again after expiry failed (default 5 s). */
  readonly retryMs?: number;
  readonly listeners?: ChatListeners;
}

/** Fetches a user token from the token server; throws ChatError('token_server') with its plain-text answer. */
export async function fetchUserToken(
  tokenServerUrl: string,
  user: string,
  fetchFn: typeof fetch = fetch,
  authorization?: string,
): Promise<string> {
  let res: Response;
  try {
    const url = `${tokenServerUrl.replace(/\/+$/, '')}/chat/user/${encodeURIComponent(user)}/token`;
    res = await fetchFn(url, authorization === undefined ? {} : { headers: { authorization } });
  } catch (e) {
    throw new ChatError('token_server', `token server unreachable: ${(e as Error).message}`);
  }
  const body = await res.text();
  if (!res.ok) throw new ChatError('token_server', `token server answered ${res.status}: ${body}`);
  return body;
}

/**
 * A connection that looks after its own tokens, as the spec asks of apps: fetch from the token server, log in,
 * renew on "will expire" and regularly (hourly), and log in again with a fresh token after expiry.
 */
export class ChatTokenSession<H = unknown> {
  readonly connection: ChatConnection;
  readonly #opts: ChatTokenSessionOptions<H>;
  readonly #timers: Timers<H>;
  #timer: H | undefined;
  #retry: H | undefined;
  #stopped = false;
  #loggingIn = false;
  #renewals = 0;
  #logins = 0;

  constructor(opts: ChatTokenSessionOptions<H>) {
    this.#opts = opts;
    this.#timers = opts.timers ?? (globalTimers as Timers<H>);
    this.connection = new ChatConnection({ url: opts.gatewayUrl, ...(opts.WebSocket ? { WebSocket: opts.WebSocket } : {}) });
    if (opts.listeners) this.connection.addEventHandler(opts.listeners);
    this.connection.addEventHandler({
      onTokenWillExpire: () => void this.renew(),
      onTokenExpired: () => void this.#relogin(),
      // A dropped connection (gateway restart, network) is re-established; a refused login is not retried.
      onDisconnected: (ev) => {
        if (!this.#stopped && !this.#loggingIn && ev.code !== LOGIN_FAILED && this.#retry === undefined) this.#scheduleRelogin();
      },
    });
  }

  /** Successful renewals and logins so far (observability for apps and tests). */
  get counts(): { readonly renewals: number; readonly logins: number } {
    return { renewals: this.#renewals, logins: this.#logins };
  }

  async start(): Promise<LoginInfo> {
    this.#stopped = false;
    const info = await this.#login();
    this.#arm();
    return info;
  }

  /** Fetches a fresh token and passes it to renewToken; failures go to onError. */
  async renew(): Promise<void> {
    if (this.#stopped) return;
    try {
      const token = await this.#fetchToken();
      await this.connection.renewToken(token);
      this.#renewals++;
    } catch (e) {
      this.#report(e);
    }
  }

  sendTextMessage(to: string, text: string): Promise<{ readonly id: string; readonly timestamp: number }> {
    return this.connection.sendTextMessage(to, text);
  }

  onTextMessage(fn: (m: TextMessage) => void): void {
    this.connection.addEventHandler({ onTextMessage: fn });
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    if (this.#retry !== undefined) this.#timers.clearTimeout(this.#retry);
    this.#timer = undefined;
    this.#retry = undefined;
    this.connection.close();
  }

  async #login(): Promise<LoginInfo> {
    const token = await this.#fetchToken();
    const info = await this.connection.open({ user: this.#opts.user, accessToken: token });
    this.#logins++;
    return info;
  }

  async #fetchToken(): Promise<string> {
    let authorization: string | undefined;
    try {
      authorization = await this.#opts.authorization?.();
    } catch (e) {
      throw new ChatError('token_server', `no credential for the token server: ${(e as Error).message}`);
    }
    return fetchUserToken(this.#opts.tokenServerUrl, this.#opts.user, this.#opts.fetch, authorization);
  }

  /** Logs in again with a fresh token, retrying until it works or the session is stopped. */
  async #relogin(): Promise<void> {
    this.#retry = undefined;
    if (this.#stopped || this.#loggingIn) return;
    this.#loggingIn = true;
    try {
      await this.#login();
    } catch (e) {
      this.#report(e);
      this.#scheduleRelogin();
    } finally {
      this.#loggingIn = false;
    }
  }

  #scheduleRelogin(): void {
    if (this.#stopped || this.#retry !== undefined) return;
    this.#retry = this.#timers.setTimeout(() => void this.#relogin(), this.#opts.retryMs ?? 5000);
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#timer = this.#timers.setTimeout(() => {
      void this.renew().finally(() => this.#arm());
    }, this.#opts.renewEveryMs ?? HOURLY_MS);
  }

  #report(e: unknown): void {
    const err = e instanceof ChatError ? e : new ChatError('internal', (e as Error).message);
    this.#opts.listeners?.onError?.(err);
  }
}
