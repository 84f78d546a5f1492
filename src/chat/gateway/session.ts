import { verifyChatUser } from '@reeltime/token';
import type { WebSocket } from 'ws';
import type { Clock, TimerHandle } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { MessageBus } from '../../redis/index.ts';
import type { ChatApp } from '../users/auth.ts';
import type { ChatUserStore } from '../users/store.ts';
import { checkUsername } from '../users/username.ts';
import type { MessageStore } from './message-store.ts';
import { CLOSE, LOGIN_REASONS, parseClientFrame, type ChatErrorCode, type ClientFrame, type ServerFrame, type TextMessage } from './protocol.ts';
import { tokenTimes } from './token-times.ts';

export const LOGIN_TIMEOUT_MS = 10_000;
export const PAUSE_AT_FRAMES = 64;
export const MAX_QUEUED_FRAMES = 20_000;

/** What a gateway is built from (and every session reads through it). */
export interface GatewayDeps {
  readonly app: ChatApp;
  readonly users: ChatUserStore;
  readonly messages: MessageStore;
  readonly clock: Clock;
  readonly log: Logger;
  /** Carries messages to the gateway process holding the recipient (Redis pub/sub, or in-process). */
  readonly bus: MessageBus;
}

/** What a session needs from the gateway that owns it. */
export interface SessionHost extends GatewayDeps {
  /** Subscribes the session to its user's messages; returns the unsubscribe function. */
  online(session: Session): Promise<() => Promise<void>>;
  offline(session: Session): void;
  deliver(message: TextMessage): Promise<void>;
}

type Verified = { ok: true; issueTs: number; expiresAt: number } | { ok: false; code: 'token_expired' | 'invalid_token'; reason: string };

/** One WebSocket connection: login, token expiry timers, renew, sending and acknowledging messages. */
export class Session {
  user: string | undefined;
  uuid: string | undefined;
  #closed = false;
  #timers: TimerHandle[] = [];
  #loginTimer: TimerHandle | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  /** Frames are handled one at a time, in arrival order. */
  #queue: Promise<void> = Promise.resolve();
  #queued = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly host: SessionHost,
  ) {
    this.#loginTimer = host.clock.setTimeout(() => {
      if (!this.user) this.#fail('login_timeout', 'no login within 10 seconds', CLOSE.LOGIN_TIMEOUT);
    }, LOGIN_TIMEOUT_MS);
    ws.on('message', (data, isBinary) => {
      // Backpressure: stop reading from a client that sends faster than frames are handled; resume once
      // drained. Frames already read past the cap (one socket chunk) are still handled; beyond a hard cap the
      // client is cut off rather than buffered without bound.
      if (++this.#queued > MAX_QUEUED_FRAMES) return this.close(CLOSE.FLOOD, 'too many frames');
      if (this.#queued === PAUSE_AT_FRAMES) ws.pause();
      const text = isBinary ? undefined : data.toString();
      this.#queue = this.#queue
        .then(() => (text === undefined ? this.send({ type: 'error', code: 'bad_request', reason: 'frames must be text' }) : this.#handle(text)))
        .catch((e: unknown) => {
          host.log.error({ err: (e as Error).message }, 'chat gateway frame failed');
          this.send({ type: 'error', code: 'internal', reason: 'internal error, please retry' });
        })
        .finally(() => {
          if (--this.#queued === 0 && ws.isPaused) ws.resume();
        });
    });
    ws.on('close', () => this.#cleanup());
    ws.on('error', () => this.#cleanup());
  }

  send(frame: ServerFrame): void {
    if (!this.#closed && this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame));
  }

  close(code: number, reason: string): void {
    this.#cleanup();
    this.ws.close(code, reason);
  }

  async #handle(raw: string): Promise<void> {
    if (this.#closed) return;
    const p = parseClientFrame(raw);
    if (!p.ok) {
      if (!this.user) return this.#fail('bad_request', p.reason, CLOSE.PROTOCOL);
      return this.send({ type: 'error', code: 'bad_request', reason: p.reason, ...(p.reqId ? { reqId: p.reqId } : {}) });
    }
    const f: ClientFrame = p.frame;
    if (f.type === 'login') return this.#login(f.user, f.token);
    if (f.type === 'ping') return this.send({ type: 'pong' });
    if (!this.user || !this.uuid) return this.#fail('not_logged_in', 'log in first', CLOSE.PROTOCOL);
    if (f.type === 'renew') return this.#renew(f.reqId, f.token);
    if (f.type === 'ack') return this.host.messages.markDelivered(f.id, this.user);
    return this.#sendText(f.reqId, f.to, f.text);
  }

  #verify(token: string, uuid: string): Verified {
    const { app, clock } = this.host;
    const check = verifyChatUser(token, {
      appId: app.appId,
      appCertificate: app.appCertificate,
      now: Math.floor(clock.now() / 1000),
      uuid,
    });
    if (check.ok) return { ok: true, issueTs: check.token.issueTs, expiresAt: check.expiresAt };
    if (check.reason === 'expired') return { ok: false, code: 'token_expired', reason: LOGIN_REASONS.expired };
    return { ok: false, code: 'invalid_token', reason: `${LOGIN_REASONS.mismatch} (${check.message})` };
  }

  async #login(rawUser: string, token: string): Promise<void> {
    if (this.user) return this.send({ type: 'error', code: 'already_logged_in', reason: `already logged in as ${this.user}` });
    const name = checkUsername(rawUser);
    const found = name.ok ? await this.host.users.find(this.host.app.org, this.host.app.app, name.value) : undefined;
    if (!found) return this.#fail('user_not_found', LOGIN_REASONS.userNotFound, CLOSE.LOGIN_FAILED);
    const v = this.#verify(token, found.uuid);
    if (!v.ok) return this.#fail(v.code, v.reason, CLOSE.LOGIN_FAILED);
    if (this.#closed) return;
    if (this.#loginTimer) this.host.clock.clearTimeout(this.#loginTimer);
    this.user = found.username;
    this.uuid = found.uuid;
    // Subscribed before the backlog is read, so a message stored meanwhile arrives live rather than not at all.
    try {
      this.#unsubscribe = await this.host.online(this);
    } catch (e) {
      // No live delivery (Redis unreachable): refuse the login rather than half-serve it; the client retries.
      this.host.log.warn({ err: (e as Error).message }, 'chat login: cannot subscribe to live messages');
      this.user = undefined;
      this.uuid = undefined;
      return this.#fail('internal', 'chat is briefly unavailable, please log in again', CLOSE.GOING_AWAY);
    }
    if (this.#closed) return void this.#unsubscribe();
    this.send({ type: 'login-ok', user: found.username, uuid: found.uuid, expiresAt: v.expiresAt * 1000 });
    this.#schedule(v.issueTs, v.expiresAt);
    for await (const page of this.host.messages.pendingPages(found.username)) {
      if (this.#closed) return;
      for (const m of page) this.send({ type: 'message', ...m });
    }
  }

  async #renew(reqId: string, token: string): Promise<void> {
    const v = this.#verify(token, this.uuid!);
    if (!v.ok) return this.send({ type: 'error', reqId, code: v.code, reason: v.reason });
    this.send({ type: 'renewed', reqId, expiresAt: v.expiresAt * 1000 });
    this.#schedule(v.issueTs, v.expiresAt);
  }

  async #sendText(reqId: string, rawTo: string, text: string): Promise<void> {
    const to = checkUsername(rawTo);
    const recipient = to.ok ? await this.host.users.find(this.host.app.org, this.host.app.app, to.value) : undefined;
    if (!recipient) return this.send({ type: 'error', reqId, code: 'user_not_found', reason: `user ${rawTo} not found` });
    const m = await this.host.messages.save(this.user!, recipient.username, text, this.host.clock.now());
    this.send({ type: 'sent', reqId, id: m.id, timestamp: m.timestamp });
    await this.host.deliver(m);
  }

  /** (Re)arms the will-expire and expired timers for the current token. */
  #schedule(issueTs: number, expiresAt: number): void {
    this.#clearTimers();
    const { clock } = this.host;
    const t = tokenTimes(issueTs, expiresAt, clock.now());
    const willExpire = () => this.send({ type: 'token-will-expire', expiresAt: expiresAt * 1000 });
    if (t.willExpireIn <= 0) willExpire();
    else this.#timers.push(clock.setTimeout(willExpire, t.willExpireIn));
    this.#timers.push(
      clock.setTimeout(() => {
        this.send({ type: 'token-expired' });
        this.close(CLOSE.TOKEN_EXPIRED, 'token expired');
      }, t.expiresIn),
    );
  }

  #fail(code: ChatErrorCode, reason: string, closeCode: number): void {
    this.send(this.user ? { type: 'error', code, reason } : { type: 'login-failed', code, reason });
    this.close(closeCode, reason.slice(0, 120));
  }

  #clearTimers(): void {
    for (const t of this.#timers) this.host.clock.clearTimeout(t);
    this.#timers = [];
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#clearTimers();
    if (this.#loginTimer) this.host.clock.clearTimeout(this.#loginTimer);
    if (this.user) this.host.offline(this);
    void this.#unsubscribe?.();
  }
}
