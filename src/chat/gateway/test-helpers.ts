import WebSocket from 'ws';
import { waitUntil } from '../../testing/wait.ts';
import type { ServerFrame } from './protocol.ts';
import type { WebSocketConstructor } from '../sdk/index.ts';

/** The `ws` package as the SDK's WebSocket constructor (Node 20 has no global WebSocket). */
export const NodeWebSocket = WebSocket as unknown as WebSocketConstructor;

/** A raw protocol client for tests that speak frames directly. */
export class RawClient {
  readonly frames: ServerFrame[] = [];
  closed: { code: number; reason: string } | undefined;
  readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (d) => this.frames.push(JSON.parse(d.toString()) as ServerFrame));
    ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
  }

  static async connect(url: string): Promise<RawClient> {
    const ws = new WebSocket(url);
    const c = new RawClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return c;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  async next<T extends ServerFrame['type']>(type: T): Promise<Extract<ServerFrame, { type: T }>> {
    let found: ServerFrame | undefined;
    await waitUntil(() => (found = this.frames.find((f) => f.type === type)) !== undefined, { what: `frame ${type}` });
    this.frames.splice(this.frames.indexOf(found!), 1);
    return found as Extract<ServerFrame, { type: T }>;
  }
}
