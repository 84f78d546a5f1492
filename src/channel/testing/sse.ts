export interface SseMessage {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: unknown;
}

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
  void (async () => {
    const dec = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += dec.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message';
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length) messages.push({ event, id, data: JSON.parse(data.join('\n')) });
          for (const w of [...waiters]) w();
        }
      }
    } catch {
      // aborted
    }
  })();
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
