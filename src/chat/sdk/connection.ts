import type { ServerFrame, TextMessage } from '../gateway/protocol.ts';
import { ChatError, WS_OPEN, type WebSocketConstructor, type WebSocketLike } from './websocket.ts';

export interface LoginInfo {
  readonly user: string;
  readonly uuid: string;
  /** ms since the epoch when the current token expires. */
  readonly expiresAt: number;
}

/** Callbacks named as in the chat SDKs. */
export interface ChatListeners {
  onConnected?(info: LoginInfo): void;
  onDisconnected?(ev: { readonly code: number; readonly reason: string }): void;
  onTextMessage?(message: TextMessage): void;
  onError?(error: ChatError): void;
  onTokenWillExpire?(ev: { readonly expiresAt: number }): void;
  onTokenExpired?(): void;
}

export interface ChatConnectionOptions {
  /** ws://host:port/chat/ws */
  readonly url: string;
  /** Browsers: omit (global WebSocket). Node 20: pass `WebSocket` from the `ws` package. */
  readonly WebSocket?: WebSocketConstructor;
  /** How long a request (login, send, renew) may wait for its answer. */
  readonly requestTimeoutMs?: number;
}

interface Pending {
  resolve(frame: ServerFrame): void;
  reject(e: ChatError): void;
  timer: ReturnType<typeof setTimeout>;
}

const SEEN_MAX = 1000;

/**
 * One chat connection: `open` logs in with a user token, `sendTextMessage`, `renewToken`, and the callbacks.
 * Messages are acknowledged after `onTextMessage` returns; redelivered duplicates are dropped.
 */
export class ChatConnection {
  readonly #opts: ChatConnectionOptions;
  readonly #listeners: ChatListeners[] = [];
  #ws: WebSocketLike | undefined;
  #login: Pending | undefined;
  readonly #pending = new Map<string, Pending>();
  #nextReq = 1;
  readonly #seen = new Set<string>();
  #info: LoginInfo | undefined;

  constructor(opts: ChatConnectionOptions) {
    this.#opts = opts;
  }

  /** Adds callbacks; returns a function that removes them. */
  addEventHandler(listeners: ChatListeners): () => void {
    this.#listeners.push(listeners);
    return () => {
      const i = this.#listeners.indexOf(listeners);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  get isOpen(): boolean {
    return this.#info !== undefined && this.#ws?.readyState === WS_OPEN;
  }

  get info(): LoginInfo | undefined {
    return this.#info;
  }

  /** Connects and logs in; rejects with a ChatError (`token_expired`, `invalid_token`, `user_not_found`, ...). */
  open(opts: { readonly user: string; readonly accessToken: string }): Promise<LoginInfo> {
    if (this.#ws) this.close();
    const Ctor = this.#opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Ctor) return Promise.reject(new ChatError('no_websocket', 'no WebSocket implementation: pass options.WebSocket'));
    const ws = new Ctor(this.#opts.url);
    this.#ws = ws;
    return new Promise<LoginInfo>((resolve, reject) => {
      this.#login = this.#pendingEntry(
        (f) => {
          if (f.type === 'login-ok') resolve({ user: f.user, uuid: f.uuid, expiresAt: f.expiresAt });
        },
        reject,
      );
      ws.onopen = () => ws.send(JSON.stringify({ type: 'login', user: opts.user, token: opts.accessToken }));
      ws.onmessage = (ev) => this.#onFrame(ws, typeof ev.data === 'string' ? ev.data : String(ev.data));
      ws.onerror = () => this.#emitError(new ChatError('network', 'WebSocket error'));
      ws.onclose = (ev) => this.#onClose(ws, ev.code, ev.reason);
    });
  }

  sendTextMessage(to: string, text: string): Promise<{ readonly id: string; readonly timestamp: number }> {
    return this.#request({ type: 'send', to, text }).then((f) =>
      f.type === 'sent' ? { id: f.id, timestamp: f.timestamp } : Promise.reject(new ChatError('bad_response', f.type)),
    );
  }

  /** Replaces the token of the open connection; the new token must be for the same user. */
  renewToken(token: string): Promise<{ readonly expiresAt: number }> {
    return this.#request({ type: 'renew', token }).then((f) => {
      if (f.type !== 'renewed') return Promise.reject(new ChatError('bad_response', f.type));
      if (this.#info) this.#info = { ...this.#info, expiresAt: f.expiresAt };
      return { expiresAt: f.expiresAt };
    });
  }

  close(): void {
    const ws = this.#ws;
    this.#ws = undefined;
    this.#info = undefined;
    this.#failAll(new ChatError('closed', 'connection closed'));
    if (ws) {
      ws.onmessage = null;
      ws.onclose = null;
      ws.onerror = null;
      ws.close(1000, 'bye');
    }
  }

  #pendingEntry(onFrame: (f: ServerFrame) => void, reject: (e: ChatError) => void): Pending {
    const timeout = this.#opts.requestTimeoutMs ?? 15_000;
    const entry: Pending = {
      resolve: (f) => {
        clearTimeout(entry.timer);
        onFrame(f);
      },
      reject: (e) => {
        clearTimeout(entry.timer);
        reject(e);
      },
      timer: setTimeout(() => entry.reject(new ChatError('timeout', 'no answer from the chat gateway')), timeout),
    };
    return entry;
  }

  #request(frame: Record<string, string>): Promise<ServerFrame> {
    const ws = this.#ws;
    if (!ws || !this.#info || ws.readyState !== WS_OPEN) return Promise.reject(new ChatError('not_connected', 'not logged in'));
    const reqId = String(this.#nextReq++);
    return new Promise<ServerFrame>((resolve, reject) => {
      this.#pending.set(reqId, this.#pendingEntry(resolve, reject));
      ws.send(JSON.stringify({ ...frame, reqId }));
    });
  }

  #settle(reqId: string, f: ServerFrame, error?: ChatError): void {
    const p = this.#pending.get(reqId);
    if (!p) return;
    this.#pending.delete(reqId);
    if (error) p.reject(error);
    else p.resolve(f);
  }

  #onFrame(ws: WebSocketLike, raw: string): void {
    if (ws !== this.#ws) return;
    let f: ServerFrame;
    try {
      f = JSON.parse(raw) as ServerFrame;
    } catch {
      return this.#emitError(new ChatError('bad_frame', 'gateway sent invalid JSON'));
    }
    switch (f.type) {
      case 'login-ok':
        this.#info = { user: f.user, uuid: f.uuid, expiresAt: f.expiresAt };
        this.#login?.resolve(f);
        this.#login = undefined;
        this.#emit((l) => l.onConnected?.(this.#info!));
        return;
      case 'login-failed': {
        const e = new ChatError(f.code, f.reason);
        this.#login?.reject(e);
        this.#login = undefined;
        return this.#emitError(e);
      }
      case 'sent':
      case 'renewed':
        return this.#settle(f.reqId, f);
      case 'error': {
        const e = new ChatError(f.code, f.reason);
        if (f.reqId && this.#pending.has(f.reqId)) return this.#settle(f.reqId, f, e);
        return this.#emitError(e);
      }
      case 'message': {
        const { type: _t, ...m } = f;
        if (!this.#seen.has(m.id)) {
          this.#seen.add(m.id);
          if (this.#seen.size > SEEN_MAX) this.#seen.delete(this.#seen.values().next().value as string);
          this.#emit((l) => l.onTextMessage?.(m));
        }
        if (ws.readyState === WS_OPEN) ws.send(JSON.stringify({ type: 'ack', id: m.id }));
        return;
      }
      case 'token-will-expire':
        return this.#emit((l) => l.onTokenWillExpire?.({ expiresAt: f.expiresAt }));
      case 'token-expired':
        return this.#emit((l) => l.onTokenExpired?.());
      default:
        return;
    }
  }

  #onClose(ws: WebSocketLike, code: number, reason: string): void {
    if (ws !== this.#ws) return;
    this.#ws = undefined;
    this.#info = undefined;
    const e = new ChatError('closed', `connection closed (${code}${reason ? `: ${reason}` : ''})`);
    this.#login?.reject(e);
    this.#login = undefined;
    this.#failAll(e);
    this.#emit((l) => l.onDisconnected?.({ code, reason }));
  }

  #failAll(e: ChatError): void {
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
    this.#login?.reject(e);
    this.#login = undefined;
  }

  #emitError(e: ChatError): void {
    this.#emit((l) => l.onError?.(e), false);
  }

  /** A throwing callback must not break the connection; it is reported through onError. */
  #emit(fn: (l: ChatListeners) => void, report = true): void {
    for (const l of [...this.#listeners]) {
      try {
        fn(l);
      } catch (err) {
        if (report) this.#emitError(new ChatError('listener', (err as Error).message));
      }
    }
  }
}
