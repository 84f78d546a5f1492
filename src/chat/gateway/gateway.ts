import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Clock } from '../../clock/index.ts';
import type { Logger } from '../../log/index.ts';
import type { MessageBus } from '../../redis/index.ts';
import type { ChatApp } from '../users/auth.ts';
import type { ChatUserStore } from '../users/store.ts';
import type { MessageStore } from './message-store.ts';
import { CLOSE, type TextMessage } from './protocol.ts';
import { Session, type GatewayDeps, type SessionHost } from './session.ts';

export const GATEWAY_PATH = '/chat/ws';
const MAX_FRAME_BYTES = 64 * 1024;

/** The chat gateway: WebSocket upgrades on /chat/ws of the shared HTTP server, and who is online. */
export class ChatGateway implements SessionHost {
  readonly app: ChatApp;
  readonly users: ChatUserStore;
  readonly messages: MessageStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly bus: MessageBus;
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  readonly #sessions = new Set<Session>();
  readonly #online = new Map<string, Set<Session>>();
  #server: Server | undefined;
  /** Running totals for /metrics: messages stored and sent on, messages pushed to a session here. */
  readonly counts = { sent: 0, pushed: 0 };

  constructor(deps: GatewayDeps) {
    this.app = deps.app;
    this.users = deps.users;
    this.messages = deps.messages;
    this.clock = deps.clock;
    this.log = deps.log;
    this.bus = deps.bus;
  }

  /** One topic per user: only gateways holding one of the user's connections are subscribed (docs/chat.md). */
  #topic(user: string): string {
    return `chat:${this.app.org}#${this.app.app}:user:${user}`;
  }

  readonly #onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://local').pathname;
    } catch {
      path = '';
    }
    if (path !== GATEWAY_PATH) {
      // Other modules may handle their own upgrades; only refuse when nobody else listens.
      if (this.#server?.listenerCount('upgrade') === 1) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      return;
    }
    // A client that resets mid-handshake must not take the process down.
    socket.on('error', () => socket.destroy());
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new Session(ws, this);
      this.#sessions.add(session);
      ws.on('close', () => this.#sessions.delete(session));
    });
  };

  attach(server: Server): void {
    this.#server = server;
    server.on('upgrade', this.#onUpgrade);
  }

  /** Resolves once messages published to the user from any process reach this session. */
  async online(s: Session): Promise<() => Promise<void>> {
    const set = this.#online.get(s.user!) ?? new Set<Session>();
    set.add(s);
    this.#online.set(s.user!, set);
    try {
      return await this.bus.subscribe(this.#topic(s.user!), (raw) => {
        const m = JSON.parse(raw) as TextMessage;
        this.counts.pushed++;
        s.send({ type: 'message', ...m });
      });
    } catch (e) {
      this.offline(s);
      throw e;
    }
  }

  offline(s: Session): void {
    const set = this.#online.get(s.user!);
    set?.delete(s);
    if (set && set.size === 0) this.#online.delete(s.user!);
  }

  /** The message is already stored: if the bus fails, the recipient still gets it at the next login. */
  async deliver(m: TextMessage): Promise<void> {
    this.counts.sent++;
    try {
      await this.bus.publish(this.#topic(m.to), JSON.stringify(m));
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'chat live delivery failed; the message waits in the database');
    }
  }

  /** Open WebSocket connections, and how many of them are logged in. */
  connections(): { readonly open: number; readonly loggedIn: number } {
    let loggedIn = 0;
    for (const set of this.#online.values()) loggedIn += set.size;
    return { open: this.#sessions.size, loggedIn };
  }

  isOnline(user: string): boolean {
    return this.#online.has(user);
  }

  /** Closes every connection (clients log in again elsewhere); undelivered messages stay in the database. */
  async close(): Promise<void> {
    this.#server?.off('upgrade', this.#onUpgrade);
    for (const s of this.#sessions) s.close(CLOSE.GOING_AWAY, 'server shutting down');
    for (const ws of this.#wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }
}
