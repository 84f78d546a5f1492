import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { spawnChild } from '../../process/index.ts';
import { freePort } from '../../testing/ports.ts';

/** Azurite's well-known development account. */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface TestAzurite {
  /** Blob endpoint without the account: `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}


/** Spawns azurite-blob on loopback, in memory, without telemetry; resolves once it answers HTTP. */
export async function startTestAzurite(): Promise<TestAzurite> {
  const port = await freePort();
  const bin = join(process.cwd(), 'node_modules', '.bin', 'azurite-blob');
  const child: ChildProcess = spawnChild(
    bin,
    [
      '--blobHost', '127.0.0.1', '--blobPort', String(port), '--inMemoryPersistence', '--disableTelemetry',
      '--loose', '--skipApiVersionCheck', '--silent',
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`azurite exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/${AZURITE_ACCOUNT}?comp=list`);
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('azurite did not start within 60 s');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}
