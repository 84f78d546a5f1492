/**
 * One virtual X display per capture, at the output size. Xvfb picks a free display number itself
 * (`-displayfd`): it tries numbers in turn and keeps the first whose socket it can bind, an atomic step, so two
 * captures starting at once never share a display; it writes the number to the given fd once it accepts clients.
 */
import type { Readable } from 'node:stream';
import { SupervisedChild } from './supervised-child.ts';

export const XVFB_BIN = 'Xvfb';
const DISPLAY_FD = 3;
const START_TIMEOUT_MS = 15_000;

export interface VirtualDisplay {
  /** `:N`, for DISPLAY and x11grab. */
  readonly display: string;
  readonly process: SupervisedChild;
}

export async function startVirtualDisplay(width: number, height: number): Promise<VirtualDisplay> {
  const proc = new SupervisedChild(
    'display',
    XVFB_BIN,
    [
      '-displayfd', String(DISPLAY_FD),
      '-screen', '0', `${width}x${height}x24`,
      // Clients reach it only through the abstract local socket: no TCP, no socket file in /tmp.
      '-nolisten', 'tcp', '-nolisten', 'unix',
      '-nocursor',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const fd = proc.child.stdio[DISPLAY_FD] as Readable;
  fd.setEncoding('utf8');
  let text = '';
  try {
    const n = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('Xvfb did not report a display in time')), START_TIMEOUT_MS);
      fd.on('data', (d: string) => {
        text += d;
        const m = /^(\d+)\n/.exec(text);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      void proc.exited.then((e) => {
        clearTimeout(timer);
        reject(new Error(`Xvfb exited (${e.code ?? e.signal}) before reporting a display: ${e.stderrTail.trim().slice(-300)}`));
      });
    });
    return { display: `:${n}`, process: proc };
  } catch (err) {
    await proc.stop(1000);
    throw err;
  }
}
