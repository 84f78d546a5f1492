/**
 * A webhook receiver for tests: a loopback HTTP server that keeps every notification it is sent, with whether its
 * signature checked out under the shared secret; `env` points a reeltime at it.
 */
import { createServer, type ServerResponse } from 'node:http';
import { verifySignature } from '../notify/index.ts';

export interface WebhookReceiver<Body> {
  /** Every notification received, in order, with `signed` telling whether its signature was valid. */
  readonly events: (Body & { readonly signed: boolean })[];
  /** The notify settings of a reeltime that should send here. */
  readonly env: { readonly REELTIME_NOTIFY_WEBHOOK_URL: string; readonly REELTIME_NOTIFY_WEBHOOK_SECRET: string };
  /**
   * While holding, a notification is kept in `events` but not answered (its sender waits, up to its timeout);
   * `hold(false)` answers the ones still waiting with 200 and every later one at once again.
   */
  hold(on: boolean): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver<Body>(secret: string): Promise<WebhookReceiver<Body>> {
  const events: (Body & { readonly signed: boolean })[] = [];
  let holding = false;
  const held: ServerResponse[] = [];
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const signed = verifySignature(raw, secret, req.headers as Record<string, string>);
      events.push({ ...(JSON.parse(raw.toString('utf8')) as Body), signed });
      if (holding) held.push(res);
      else answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    events,
    env: { REELTIME_NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`, REELTIME_NOTIFY_WEBHOOK_SECRET: secret },
    hold(on) {
      holding = on;
      if (!on) for (const res of held.splice(0)) if (!res.destroyed) answer(res);
    },
    close: () => {
      for (const res of held.splice(0)) res.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
