// A batch worker of the fast lane (scripts/test.mjs): one process runs many test files, one after another, so the
// packages every file loads (fastify, werift, the AWS SDK, kysely...: about 3 s of CPU) load once per worker instead
// of once per file. Each file's tests and hooks run in a suite of their own (shim.mjs); files come one at a time over
// IPC ({ file }), and the worker answers { done } after each, { ready } once at start. { end } lets it exit.
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuMsSoFar } from '../process-cpu.mjs';

register('./hooks.mjs', import.meta.url);
const shim = await import('./shim.mjs');
const root = new URL('../..', import.meta.url).pathname;
const FILE_TIMEOUT_MS = Number(process.env.REELTIME_TEST_FILE_TIMEOUT_MS || 180_000);

// An error thrown outside any test (scripts/test-async-hook.mjs: async resources are not followed to their test)
// fails the file that was running.
let uncaught = null;
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (e) => {
    uncaught ??= `${event}: ${e?.stack ?? e}`;
  });
}

async function runFile(file) {
  uncaught = null;
  process.env.REELTIME_TEST_FILE = file;
  const cpuBefore = cpuMsSoFar();
  shim.beginFile();
  let importError = null;
  try {
    await import(pathToFileURL(join(root, file)).href);
  } catch (e) {
    importError = e;
  }
  const replay = shim.endFile();
  await shim.realDescribe(file, { timeout: FILE_TIMEOUT_MS }, () => {
    if (importError !== null) {
      shim.realTest('the file imports', () => {
        throw importError;
      });
    } else replay();
  });
  const cpu = cpuMsSoFar() - cpuBefore;
  // Let the reporters write the file's last lines before the runner hears it is done.
  await new Promise((r) => setImmediate(r));
  process.send({ done: file, cpuMs: Math.round(cpu), ...(uncaught === null ? {} : { crashed: uncaught }) });
}

process.on('message', (msg) => {
  if (msg.file) runFile(msg.file).catch((e) => process.send({ done: msg.file, crashed: String(e?.stack ?? e) }));
  else if (msg.end) process.disconnect();
});
process.send({ ready: true });
