/**
 * A minimal Chrome DevTools Protocol client over `--remote-debugging-pipe`: Chromium reads commands on its fd 3
 * and writes replies and events on its fd 4, each message JSON ended by a NUL byte. A pipe, unlike a debugging
 * port, is reachable by nothing but this process (a recorded page cannot connect to it).
 */
import type { Readable, Writable } from 'node:stream';

export type CdpParams = Record<string, unknown>;

export interface CdpEvent {
  readonly method: string;
  readonly params: CdpParams;
  readonly sessionId?: string;
}

interface Pending {
  resolve(v: CdpParams): void;
  reject(e: Error): void;
  method: string;
}

export class CdpPipe {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(e: CdpEvent) => void>();
  private buffered: Buffer[] = [];
  private closed = false;

  constructor(
    private readonly out: Writable,
    input: Readable,
  ) {
    input.on('data', (d: Buffer) => this.receive(d));
    input.on('close', () => this.close(new Error('DevTools pipe closed')));
    input.on('error', () => undefined);
    out.on('error', () => undefined);
  }

  send(method: string, params: CdpParams = {}, sessionId?: string): Promise<CdpParams> {
    if (this.closed) return Promise.reject(new Error(`DevTools pipe closed (${method})`));
    const id = this.nextId++;
    const msg = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.out.write(`${msg}\0`);
    });
  }

  onEvent(listener: (e: CdpEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(0); i !== -1; i = chunk.indexOf(0, start)) {
      this.buffered.push(chunk.subarray(start, i));
      const text = Buffer.concat(this.buffered).toString('utf8');
      this.buffered = [];
      start = i + 1;
      this.dispatch(text);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  private dispatch(text: string): void {
    let msg: { id?: number; method?: string; params?: CdpParams; result?: CdpParams; error?: { message: string }; sessionId?: string };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p.resolve(msg.result ?? {});
      return;
    }
    if (msg.method) {
      const e: CdpEvent = { method: msg.method, params: msg.params ?? {}, ...(msg.sessionId ? { sessionId: msg.sessionId } : {}) };
      for (const l of this.listeners) l(e);
    }
  }

  close(reason = new Error('DevTools pipe closed')): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
  }
}
