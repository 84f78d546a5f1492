import { readSseStream, type SseMessage } from '../client/sse.ts';

export type { SseMessage } from '../client/sse.ts';

export interface SseReader {
  readonly messages: SseMessage[];
  waitFor(pred: (all: readonly SseMessage[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Reads a text/event-stream with fetch (tests; EventSource is not in Node 20). */
export async function readSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const ctl = new AbortController();
  const res = await fetch(url, { headers, signal: ctl.signal });
  if (res.status !== 200 || !res.body) throw new Error(`SSE ${url}: HTTP ${res.status} ${await res.text()}`);
  const messages: SseMessage[] = [];
  const waiters = new Set<() => void>();
  void readSseStream(res.body as unknown as AsyncIterable<Uint8Array>, (m) => {
    messages.push(m);
    for (const w of [...waiters]) w();
  }).catch(() => undefined); // aborted

  return {
    messages,
    waitFor(pred, timeoutMs = 20000) {
      if (pred(messages)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pred(messages)) return;
          clearTimeout(t);
          waiters.delete(check);
          resolve();
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SSE: timed out; got ${messages.map((m) => m.event).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () => ctl.abort(),
  };
}
