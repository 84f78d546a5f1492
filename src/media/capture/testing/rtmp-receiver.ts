/** A loopback RTMP "CDN" for push tests: ffmpeg as a one-shot RTMP server writing what it receives. */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnChild } from '../../../process/index.ts';

export { freePort } from '../../../testing/ports.ts';

/**
 * ffmpeg as a one-shot RTMP server on loopback, writing what it receives as MPEG-TS (readable even if killed). It
 * probes 5 s: on a loaded machine the first audio packet can come more than a second after the first video one, and
 * a receiver that stopped probing at 1 s wrote video only (seen in whole-suite runs).
 */
export function rtmpReceiver(port: number, file: string): ChildProcess {
  return spawnChild('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-analyzeduration', '5000000', '-listen', '1', '-i', `rtmp://127.0.0.1:${port}/live/test`, '-c', 'copy', '-f', 'mpegts', file], {
    stdio: 'ignore',
  });
}

/**
 * Whether something listens on 127.0.0.1:`port` (the kernel's socket table): how a test waits for a one-shot
 * receiver without connecting to it, which would use up its only connection.
 */
export function listeningOnLoopback(port: number): boolean {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  // Columns: sl, local_address, rem_address, st (0A = LISTEN), ...
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .some((line) => {
      const cols = line.trim().split(/\s+/);
      return cols[1] === local && cols[3] === '0A';
    });
}
