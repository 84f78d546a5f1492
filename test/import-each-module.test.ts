// Every module of src/ and packages/*/src imports cleanly when it is the first file loaded, e.g. no
// "Cannot access 'x' before initialization" from an import cycle that only bites in one import order.
// Each file gets a fresh graph of project modules (fresh-graph-hooks.mjs) inside one runner process, which
// costs far less than a process per file while checking the same thing. One runner, not one per core: the
// packages (fastify, werift, the AWS SDK...) stay shared and cost each runner ~6 s of CPU to load, more than the
// project's own modules; measured 11.5 s CPU for one runner against 17 s for two.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnChild } from '../src/process/index.ts';
import { moduleFiles, ROOT } from './import-graph.ts';

function runImports(files: readonly string[]): Promise<{ failures: { file: string; error: string; stack: string }[]; stderr: string; code: number | null }> {
  const child = spawnChild(process.execPath, ['--import', 'tsx', '--import', './test/fresh-graph.mjs', 'test/import-each-runner.ts', ...files], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  return new Promise((resolve) =>
    child.once('close', (code) => {
      const failures = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { file: string; error: string; stack: string });
      resolve({ failures, stderr, code });
    }),
  );
}

test('every module file imports on its own without crashing', async (t) => {
  const files = moduleFiles();
  const { failures, stderr, code } = await runImports(files);
  assert.equal(code, 0, `the import runner failed:\n${stderr}`);
  t.diagnostic(`${files.length} module files imported, each in its own module graph`);
  assert.deepEqual(
    failures.map((f) => `${f.file}: ${f.error}\n${f.stack.split('\n').slice(1, 4).join('\n')}`),
    [],
  );
});
