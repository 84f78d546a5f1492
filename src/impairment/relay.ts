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
  /** The peer source addresses (`address|port`) seen so far, in the order of their first datagram. */
  peers(): readonly string[];
  /**
   * One peer's own link in one direction from now on, in place of the shared one (its access link: a viewer's
   * downlink capped while the publisher's stays clean). Counted in `counters` with the rest.
   */
  setPeerLink(peer: string, direction: 'upstream' | 'downstream', link: LinkImpairment): void;
  /**
   * A change of network, as a NAT rebinding or a phone moving from Wi-Fi to mobile: every peer's socket towards the
   * target is closed, so the target's datagrams to the old address are lost, and a peer's next datagram goes out
   * from a new socket (a new address for the target).
   */
  rebind(): Promise<void>;
  /**
   * The network the peers used so far is gone (a phone that left the Wi-Fi): datagrams from every peer source seen
   * until now are dropped from here on, and so are the target's answers to them. A peer's new sockets (an ICE
   * restart in Chromium gathers on new ones) get through. Counted as `dropped.random` upstream.
   */
  dropPeers(): void;
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
    const peerSockets: Map<string, Promise<Socket>>[] = [];
    const seenPeers = new Set<string>();
    const droppedPeers = new Set<string>();
    const peerLinks = new Map<string, { upstream?: LinkScheduler; downstream?: LinkScheduler }>();
    const upFor = (key: string) => peerLinks.get(key)?.upstream ?? up;
    const downFor = (key: string) => peerLinks.get(key)?.downstream ?? down;
    for (const m of opts.mappings) {
      const listen = await bind(m.listen.address, m.listen.port);
      sockets.push(listen);
      endpoints.push({ address: m.listen.address, port: listen.address().port });
      const towardsTarget = new Map<string, Promise<Socket>>();
      peerSockets.push(towardsTarget);
      const outbound = (peer: RemoteInfo): Promise<Socket> => {
        const key = `${peer.address}|${peer.port}`;
        let s = towardsTarget.get(key);
        if (!s) {
          s = bind(localFor(m.target.address), 0).then((socket) => {
            if (closed) socket.close();
            else sockets.push(socket);
            socket.on('message', (data) => {
              if (!droppedPeers.has(key)) release(downFor(key), data, () => listen.send(data, peer.port, peer.address));
            });
            return socket;
          });
          towardsTarget.set(key, s);
        }
        return s;
      };
      listen.on('message', (data, peer) => {
        const key = `${peer.address}|${peer.port}`;
        seenPeers.add(key);
        if (droppedPeers.has(key)) {
          up.counters.packetsIn++;
          up.counters.bytesIn += data.length;
          up.counters.dropped.random++;
          return;
        }
        void outbound(peer).then((socket) => {
          if (!closed) release(upFor(key), data, () => socket.send(data, m.target.port, m.target.address));
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
      peers: () => [...seenPeers],
      setPeerLink(peer, direction, link) {
        const links = peerLinks.get(peer) ?? {};
        links[direction] = new LinkScheduler(link, random, direction === 'upstream' ? up.counters : down.counters);
        peerLinks.set(peer, links);
      },
      async rebind() {
        const old = peerSockets.flatMap((m) => {
          const sockets = [...m.values()];
          m.clear();
          return sockets;
        });
        for (const s of await Promise.all(old)) {
          sockets.splice(sockets.indexOf(s), 1);
          await new Promise<void>((resolve) => s.close(() => resolve()));
        }
      },
      dropPeers() {
        for (const p of seenPeers) droppedPeers.add(p);
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
