/** A loopback RTMP "CDN" for push tests: ffmpeg as a one-shot RTMP server writing what it receives. */
import type { ChildProcess } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { spawnChild } from '../../../process/index.ts';

export async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

/** ffmpeg as a one-shot RTMP server on loopback, writing what it receives as MPEG-TS (readable even if killed). */
export function rtmpReceiver(port: number, file: string): ChildProcess {
  return spawnChild('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-analyzeduration', '1000000', '-listen', '1', '-i', `rtmp://127.0.0.1:${port}/live/test`, '-c', 'copy', '-f', 'mpegts', file], {
    stdio: 'ignore',
  });
}
