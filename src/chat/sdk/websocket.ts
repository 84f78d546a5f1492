/** The part of the WHATWG WebSocket the SDK uses: browsers' WebSocket and the `ws` package both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { readonly data: unknown }) => void) | null;
  onclose: ((ev: { readonly code: number; readonly reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export const WS_OPEN = 1;

/** Timers the SDK's renewal schedule runs on; reeltime's Clock fits, so tests can drive time. */
export interface Timers<H = unknown> {
  setTimeout(fn: () => void, ms: number): H;
  clearTimeout(handle: H): void;
}

export const globalTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as Parameters<typeof globalThis.clearTimeout>[0]),
};

/** An error reported by the SDK: a gateway code (`token_expired`, `invalid_token`, ...) or a local one. */
export class ChatError extends Error {
  override readonly name = 'ChatError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
