/** Loopback UDP ports for ffmpeg's RTP input: an even RTP port whose odd RTCP neighbour is free too. */
import { createSocket } from 'node:dgram';

function tryBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', () => {
      s.close();
      resolve(false);
    });
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

const LOW = 20000;
const HIGH = 59998;
let cursor = LOW + 2 * Math.floor(Math.random() * ((HIGH - LOW) / 2));
const reserved = new Set<number>();

/** A free even port pair; reserved in this process until released (ffmpeg binds it moments later). */
export async function allocateRtpPort(): Promise<number> {
  for (let i = 0; i < 2000; i++) {
    cursor += 2;
    if (cursor > HIGH) cursor = LOW;
    const port = cursor;
    if (reserved.has(port)) continue;
    if ((await tryBind(port)) && (await tryBind(port + 1))) {
      reserved.add(port);
      return port;
    }
  }
  throw new Error('no free UDP port pair on 127.0.0.1');
}

export function releaseRtpPort(port: number): void {
  reserved.delete(port);
}

/** True once someone (ffmpeg) holds the port: our own bind then fails. */
export async function isPortBound(port: number): Promise<boolean> {
  return !(await tryBind(port));
}
