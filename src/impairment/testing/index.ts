import { createSocket } from 'node:dgram';

/** Whether every UDP port in [first, first + count) can be bound on 127.0.0.1 now. */
async function free(first: number, count: number): Promise<boolean> {
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
    if ((await free(nodeMin, count)) && (await free(nodeMin + offset, count))) return { nodeMin, offset };
  }
  throw new Error('no two free UDP port ranges on 127.0.0.1');
}
export { countVp8Frames, type Vp8FrameCount } from './vp8-frames.ts';
