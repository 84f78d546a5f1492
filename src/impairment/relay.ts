import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { seededRandom } from './prng.ts';
import { LinkScheduler, type LinkCounters, type LinkImpairment } from './scheduler.ts';

export interface UdpEndpoint {
  readonly address: string;
  readonly port: number;
}

/** One relay port: datagrams to `listen` go to `target`, the target's answers go back to whoever sent them. */
export interface RelayMapping {
  readonly listen: UdpEndpoint;
  readonly target: UdpEndpoint;
}

export interface RelayOptions {
  readonly mappings: readonly RelayMapping[];
  /** Peer → target (a publisher's media, a viewer's feedback). */
  readonly upstream?: LinkImpairment;
  /** Target → peer (a viewer's media, a publisher's feedback). */
  readonly downstream?: LinkImpairment;
  /** PRNG seed: the same seed and traffic drop the same datagrams. */
  readonly seed?: number;
}

export interface ImpairmentRelay {
  /** The bound listen endpoints, in the order of the mappings (port 0 resolved). */
  readonly endpoints: readonly UdpEndpoint[];
  readonly counters: { readonly upstream: LinkCounters; readonly downstream: LinkCounters };
  /**
   * New settings for one direction from now on (the counters go on): e.g. a clean link while peers connect, then
   * loss; or a bandwidth cap put on a publisher that is already sending.
   */
  setLink(direction: 'upstream' | 'downstream', link: LinkImpairment): void;
  close(): Promise<void>;
}

async function bind(address: string, port: number): Promise<Socket> {
  const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address, port }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  // An ICMP "port unreachable" surfaces as an error on the socket; the relay, like a network, carries on.
  socket.on('error', () => undefined);
  return socket;
}

/** The local address to reach `target` from: loopback for a loopback target, so a test's relay stays on it. */
function localFor(target: string): string {
  if (target.startsWith('127.')) return '127.0.0.1';
  if (target === '::1') return '::1';
  return target.includes(':') ? '::' : '0.0.0.0';
}

/**
 * A user-space UDP relay with an impaired link each way (no root, no tc). Each peer source address gets its own
 * socket towards the target, so the target sees one remote per peer, as behind a NAT. One LinkScheduler per
 * direction is shared by every mapping: they are one link.
 */
export async function startImpairmentRelay(opts: RelayOptions): Promise<ImpairmentRelay> {
  const random = seededRandom(opts.seed ?? 1);
  let up = new LinkScheduler(opts.upstream ?? {}, random);
  let down = new LinkScheduler(opts.downstream ?? {}, random);
  const sockets: Socket[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const start = performance.now();
  const now = () => performance.now() - start;

  const release = (link: LinkScheduler, data: Buffer, send: () => void): void => {
    const verdict = link.decide(now(), data.length);
    if (verdict.kind === 'drop') return;
    for (const at of verdict.at) {
      const wait = at - now();
      if (wait < 0.5) {
        send();
        continue;
      }
      const t = setTimeout(() => {
        timers.delete(t);
        if (!closed) send();
      }, wait);
      timers.add(t);
    }
  };

  try {
    const endpoints: UdpEndpoint[] = [];
    for (const m of opts.mappings) {
      const listen = await bind(m.listen.address, m.listen.port);
      sockets.push(listen);
      endpoints.push({ address: m.listen.address, port: listen.address().port });
      const towardsTarget = new Map<string, Promise<Socket>>();
      const outbound = (peer: RemoteInfo): Promise<Socket> => {
        const key = `${peer.address}|${peer.port}`;
        let s = towardsTarget.get(key);
        if (!s) {
          s = bind(localFor(m.target.address), 0).then((socket) => {
            if (closed) socket.close();
            else sockets.push(socket);
            socket.on('message', (data) => {
              release(down, data, () => listen.send(data, peer.port, peer.address));
            });
            return socket;
          });
          towardsTarget.set(key, s);
        }
        return s;
      };
      listen.on('message', (data, peer) => {
        void outbound(peer).then((socket) => {
          if (!closed) release(up, data, () => socket.send(data, m.target.port, m.target.address));
        });
      });
    }
    return {
      endpoints,
      counters: { upstream: up.counters, downstream: down.counters },
      setLink(direction, link) {
        if (direction === 'upstream') up = new LinkScheduler(link, random, up.counters);
        else down = new LinkScheduler(link, random, down.counters);
      },
      async close() {
        closed = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      },
    };
  } catch (e) {
    closed = true;
    for (const s of sockets) s.close();
    throw e;
  }
}

/** One mapping per port: `listenMin + i` → `targetMin + i` for i < count (a relay in front of a node's port range). */
export function portRangeMappings(listen: UdpEndpoint, target: UdpEndpoint, count: number): RelayMapping[] {
  return Array.from({ length: count }, (_, i) => ({
    listen: { address: listen.address, port: listen.port + i },
    target: { address: target.address, port: target.port + i },
  }));
}
