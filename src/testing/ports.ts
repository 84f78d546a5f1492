/** Free loopback ports for servers that tests start (coturn, Redis, an RTMP receiver). */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', resolve);
  });
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

async function udpPortIsFree(port: number): Promise<boolean> {
  const s = createSocket('udp4');
  return new Promise((resolve) => {
    s.once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A UDP port on 127.0.0.1 nothing listens on now (the kernel's pick, released). */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.bind(0, '127.0.0.1', resolve);
  });
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A port free for both TCP and UDP on 127.0.0.1 (a TURN or STUN server listens on both). */
export async function freeTcpUdpPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    if (await udpPortIsFree(port)) return port;
  }
  throw new Error('no port free for both TCP and UDP on 127.0.0.1');
}
