import { createServer, type Socket } from 'node:net';
import { serveRtmpConnection, type SessionOptions } from './session.ts';

/** Connections at once (publishing or not); more are closed as they arrive. */
const MAX_CONNECTIONS = 256;

export interface RtmpServerOptions extends SessionOptions {
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
}

export interface RtmpServer {
  /** The port actually bound. */
  readonly port: number;
  /** Stops listening and closes every connection (their publishes end). */
  close(): Promise<void>;
}

/** The RTMP listener: one TCP server, one publish per connection (rtmp/session.ts). */
export async function startRtmpServer(opts: RtmpServerOptions): Promise<RtmpServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serveRtmpConnection(socket, opts);
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const port = addr && typeof addr === 'object' ? addr.port : opts.port;
  return {
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
