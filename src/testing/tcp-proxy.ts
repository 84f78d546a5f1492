/**
 * A loopback TCP proxy a test can cut, to take a dependency (PostgreSQL, Redis) away from some processes without
 * stopping the shared server. `reset` drops every connection and refuses new ones, as a restarted server or a
 * firewall that rejects does; `blackhole` holds connections open and forwards nothing, as a network partition
 * does (clients notice only through their own timeouts). `restore` ends the held connections and forwards again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** `postgres://...` or `redis://...` with the proxy's port in place of the target's. */
  via(url: string): string;
  cut(mode: 'reset' | 'blackhole'): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  let state: 'open' | 'reset' | 'blackhole' = 'open';
  const pairs = new Set<[Socket, Socket | undefined]>();
  const drop = (pair: [Socket, Socket | undefined]) => {
    pair[0].destroy();
    pair[1]?.destroy();
    pairs.delete(pair);
  };
  const server: Server = createServer((client) => {
    client.on('error', () => undefined);
    if (state === 'reset') return void client.destroy();
    const pair: [Socket, Socket | undefined] = [client, undefined];
    pairs.add(pair);
    client.on('close', () => drop(pair));
    // Held: data read and discarded, nothing forwarded, nothing answered.
    if (state === 'blackhole') return void client.on('data', () => undefined);
    const upstream = connect(targetPort, targetHost);
    pair[1] = upstream;
    upstream.on('error', () => drop(pair));
    upstream.on('close', () => drop(pair));
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (state === 'open') to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut(mode) {
      state = mode;
      if (mode === 'reset') for (const p of [...pairs]) drop(p);
    },
    restore() {
      for (const p of [...pairs]) drop(p);
      state = 'open';
    },
    async close() {
      for (const p of [...pairs]) drop(p);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
