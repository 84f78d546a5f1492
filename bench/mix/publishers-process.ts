/**
 * The synthetic publishers' own process (bench/mix/publishers.ts), started and stopped from a benchmark: its
 * messages are JSON lines on stdout, and closing its stdin ends it.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnChild } from '../../src/process/index.ts';
import type { PublishersMessage, PublishersPlan } from './publishers.ts';

export const PUBLISHERS_SCRIPT = new URL('./publishers.ts', import.meta.url).pathname;

export interface PublishersProcess {
  readonly pid: number;
  /** Ends the publishers (stdin closed), SIGKILL after 15 s. */
  stop(): Promise<void>;
}

/** Resolves once every publisher is in the channel; `onFrames` gets each frame-send report (uid, index, sent at). */
export async function startPublishersProcess(
  plan: PublishersPlan,
  onFrames?: (frames: ReadonlyArray<readonly [number, number, number]>) => void,
): Promise<PublishersProcess> {
  const child: ChildProcess = spawnChild(process.execPath, [...process.execArgv, PUBLISHERS_SCRIPT, JSON.stringify(plan)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let rest = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      const lines = (rest + d).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const m = JSON.parse(line) as PublishersMessage;
        if (m.type === 'ready') resolve();
        else if (m.type === 'failed') reject(new Error(`publishers: ${m.message}`));
        else onFrames?.(m.frames);
      }
    });
    void exited.then(() => reject(new Error('the publishers process exited')));
  });
  const stop = async (): Promise<void> => {
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await ready;
  } catch (e) {
    await stop();
    throw e;
  }
  return { pid: child.pid!, stop };
}
