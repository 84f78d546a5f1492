import { createSocket } from 'node:dgram';
import { startTestServer, type TestServer } from '../../testing/index.ts';
import { portRangeMappings, startImpairmentRelay, type ImpairmentRelay, type LinkImpairment } from '../index.ts';

/** Whether every UDP port in [first, first + count) can be bound on 127.0.0.1 now. */
export async function udpPortsFree(first: number, count: number): Promise<boolean> {
  for (let port = first; port < first + count; port++) {
    const s = createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => {
      s.once('error', () => resolve(false));
      s.bind({ address: '127.0.0.1', port }, () => resolve(true));
    });
    await new Promise<void>((resolve) => s.close(() => resolve()));
    if (!ok) return false;
  }
  return true;
}

/**
 * Two free loopback UDP port ranges of `count` ports, `offset` apart: the channel node's media ports and the
 * relay's. Picked below the kernel's ephemeral range (32768+) so other tests' sockets do not land in them.
 */
export async function freeShiftedRanges(count: number): Promise<{ readonly nodeMin: number; readonly offset: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const nodeMin = 10_000 + Math.floor(Math.random() * 10_000);
    const offset = 10_000 + Math.floor(Math.random() * 2000);
    if ((await udpPortsFree(nodeMin, count)) && (await udpPortsFree(nodeMin + offset, count))) return { nodeMin, offset };
  }
  throw new Error('no two free UDP port ranges on 127.0.0.1');
}
export { countVp8Frames, type Vp8FrameCount } from './vp8-frames.ts';
export { assertVp8Decodes } from './vp8-decode.ts';

/** A channel node whose media ports are reached only through an impairment relay (`channel.icePortOffset`). */
export interface NodeBehindRelay {
  readonly server: TestServer;
  readonly relay: ImpairmentRelay;
  close(): Promise<void>;
}

/**
 * A test server binding `ports` media ports and announcing them shifted onto a relay's, so every peer's ICE, DTLS
 * and media goes peer → relay → node (docs/impairment.md). `upstream` and `downstream` impair from the start.
 */
export async function startNodeBehindRelay(
  opts: { readonly ports?: number; readonly seed?: number; readonly upstream?: LinkImpairment; readonly downstream?: LinkImpairment } = {},
): Promise<NodeBehindRelay> {
  const ports = opts.ports ?? 8;
  const { nodeMin, offset } = await freeShiftedRanges(ports);
  const server = await startTestServer({
    values: { channel: { udpPortMin: nodeMin, udpPortMax: nodeMin + ports - 1, icePortOffset: offset, idleTimeoutMs: 60_000 } },
  });
  let relay: ImpairmentRelay;
  try {
    relay = await startImpairmentRelay({
      mappings: portRangeMappings({ address: '127.0.0.1', port: nodeMin + offset }, { address: '127.0.0.1', port: nodeMin }, ports),
      ...(opts.upstream ? { upstream: opts.upstream } : {}),
      ...(opts.downstream ? { downstream: opts.downstream } : {}),
      seed: opts.seed ?? 27,
    });
  } catch (e) {
    await server.close();
    throw e;
  }
  return {
    server,
    relay,
    async close() {
      await relay.close();
      await server.close();
    },
  };
}

/** Runs `run` against a node behind a relay, closing both after it. */
export async function withNodeBehindRelay(
  run: (server: TestServer, relay: ImpairmentRelay) => Promise<void>,
  opts: Parameters<typeof startNodeBehindRelay>[0] = {},
): Promise<void> {
  const n = await startNodeBehindRelay(opts);
  try {
    await run(n.server, n.relay);
  } finally {
    await n.close();
  }
}
