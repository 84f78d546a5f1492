/** One message of a text/event-stream. */
export interface SseMessage {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: unknown;
}

/**
 * Reads a text/event-stream body (EventSource is not in Node 20) and calls `onMessage` for each message with
 * JSON data; comments (keep-alives) are skipped. Resolves when the stream ends, rejects when it breaks.
 */
export async function readSseStream(body: AsyncIterable<Uint8Array>, onMessage: (m: SseMessage) => void): Promise<void> {
  const dec = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
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
      if (data.length) onMessage({ event, id, data: JSON.parse(data.join('\n')) });
    }
  }
}
